// The AdaMix-R experiment as cluster work units without Slurm: a stand-in sbatch accepts the job,
// each grid part (seed × private-per-class value) runs in this process (as `dpmix worker` would),
// and the merge stores the one experiment run. It is compared with the local experiment on the
// same project (whose extractor the submission reuses, so both see the same features): the same
// cell rows and per-example records (stored blobs with equal content hashes) and the same metrics
// bit for bit. Also: nothing is stored before every part is done; merging twice stores nothing
// twice; an extractor trained at submission is stored with the merged run (and a later local
// experiment reuses it); a damaged inputs file is refused by the worker and by the merge.
#include "engine/executor/adamix_units.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/cluster_process.h"
#include "engine/executor/run_units.h"
#include "engine/experiment_runs/adamix_experiment_stage.h"
#include "engine/experiments/adamix_records.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "unit_job_fixture.h"

#include "tests/support/unit_test.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::executor;
using namespace dpmix::experiment_runs;
namespace fs = std::filesystem;

namespace {

// The sensitive task's classes a–d; a public source "ext" with other classes (w–z) trains the
// frozen extractor.
const std::string kSpec = R"({
  "name": "tiny-adamix",
)" + testing::tinyStudySources(true) +
                          R"(  "tasks": {
    "public": [{"name": "a", "classes": ["a"], "source": "pub"}, {"name": "b", "classes": ["b"], "source": "pub"}],
    "sensitive": [{"name": "ab", "classes": ["a", "b"]}]
  },
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.3},
  "seeds": [0]
})";

AdamixExperimentOptions tinyOptions() {
    AdamixExperimentOptions o;
    o.grid.shots = {1, 2};
    o.grid.privatePerClass = {5, experiments::kAllPrivate};
    o.grid.epsilons = {1.0, 4.0};
    o.grid.seeds = 2;
    o.grid.steps = 8;
    o.grid.threads = 1;
    o.extractorEpochs = 1;
    return o;
}

// Stored blobs of a run by name (content hashes), without the extractor's weights.
std::map<std::string, std::string> blobs(const project::ProjectFile& p, long long run) {
    std::map<std::string, std::string> out;
    for (const auto& m : p.models(run).value())
        if (m.name != experiments::kAdamixExtractorModel) out[m.name] = m.contentHash;
    return out;
}

std::string metricBits(const project::ProjectFile& p, long long run) {
    std::string text;
    for (const auto& m : p.metrics(run).value()) {
        text += m.name + "/" + m.className + "=" + testing::bitsText(m.value) + "\n";
    }
    return text;
}

}  // namespace

class TestAdamixUnits : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    project::ProjectFile freshProject(const std::string& name) {
        return testing::createProjectFromSpecText(dir_.path(), name, kSpec);
    }

    // Submits `frozen` as a job of `p` (the inputs file written into its directory).
    Result<cluster::SubmitReport> submit(project::ProjectFile& p, const FrozenAdamixExperiment& frozen,
                                         const AdamixExperimentOptions& options) {
        return cluster::submitJob(
            p, cluster::JobKind::Adamix, frozen.json, adamixWorkUnits(options.grid), {}, false,
            [&](const fs::path& d) { return cluster::writeAtomically(d / kAdamixInputsFile, frozen.inputs); });
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        testing::prepareJobFolder(dir_.path(), {{"pub", 120, 1}, {"ext", 160, 3}, {"sens", 400, 2}},
                                  "4545");  // the units run here
    }

    void gridPartsMergeIntoTheLocalExperiment() {
        auto p = freshProject("grid");
        const auto options = tinyOptions();
        auto local = runAdamixExperiment(p, options);
        QVERIFY2(local.ok(), local.ok() ? "" : local.error().message.c_str());
        QVERIFY(!local->setup.extractorReused);

        auto frozen = freezeAdamixExperiment(p, options);  // reuses the local run's extractor
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        const auto units = adamixWorkUnits(options.grid);
        QCOMPARE(units.size(), std::size_t(4));  // 2 seeds × 2 private counts
        auto job = submit(p, *frozen, options);
        QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
        const long long after = lastRunId(p).value();
        auto e = testing::runUnitsHere(job->dir, {3, 0, 1});
        QVERIFY2(!e, e ? e->c_str() : "");
        e = testing::mergeWaitsForOneUnit(p, after);  // unit 2 missing: the summary needs every part
        QVERIFY2(!e, e ? e->c_str() : "");
        e = testing::runUnitsHere(job->dir, {2});
        QVERIFY2(!e, e ? e->c_str() : "");
        auto merged = cluster::mergeJobs(p);
        QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().message.c_str());
        QVERIFY(merged->front().imported);
        const long long run = merged->front().runId;

        // The stored cells, per-example records and metrics: the local run's, bit for bit.
        const auto localBlobs = blobs(p, local->runId), clusterBlobs = blobs(p, run);
        QVERIFY(localBlobs.count(experiments::kAdamixCellsBlob));
        QVERIFY(localBlobs.size() > 1);  // per-example records of the AdaMix-R cells
        QVERIFY(localBlobs == clusterBlobs);
        QCOMPARE(metricBits(p, run), metricBits(p, local->runId));
        QVERIFY(!metricBits(p, run).empty());
        auto read = experiments::readAdamixExperiment(p, run);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QVERIFY(read->setup.extractorReused);
        QCOMPARE(read->setup.extractorRunId, local->runId);
        QCOMPARE(read->result.cells.size(), local->result.cells.size());

        auto again = cluster::mergeJobs(p);
        QVERIFY(again.ok());
        QVERIFY(again->front().alreadyMerged);
        QCOMPARE(lastRunId(p).value(), run);
        auto chain = p.verifyChain();
        QVERIFY(chain.ok() && chain->ok);
    }

    void anExtractorTrainedAtSubmissionIsStoredWithTheMergedRun() {
        auto p = freshProject("trained");
        auto options = tinyOptions();
        options.grid.seeds = 1;
        options.grid.privatePerClass = {5};
        auto frozen = freezeAdamixExperiment(p, options);
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        QVERIFY(p.runs().value().empty());  // the preparation writes nothing
        auto job = submit(p, *frozen, options);
        QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
        auto e = cluster::runWorkerUnit(job->dir, 0, 1);
        QVERIFY2(!e, e ? e->message.c_str() : "");
        auto merged = cluster::mergeJobs(p);
        QVERIFY2(merged.ok() && merged->front().imported,
                 merged.ok() ? merged->front().summary.c_str() : merged.error().message.c_str());
        bool hasExtractor = false;
        for (const auto& m : p.models(merged->front().runId).value())
            hasExtractor |= m.name == experiments::kAdamixExtractorModel;
        QVERIFY(hasExtractor);
        auto later = runAdamixExperiment(p, options);
        QVERIFY2(later.ok(), later.ok() ? "" : later.error().message.c_str());
        QVERIFY(later->setup.extractorReused);
        QCOMPARE(later->setup.extractorRunId, merged->front().runId);
    }

    void aDamagedInputsFileIsRefused() {
        auto p = freshProject("damaged");
        auto options = tinyOptions();
        options.grid.seeds = 1;
        options.grid.privatePerClass = {5};
        auto frozen = freezeAdamixExperiment(p, options);
        QVERIFY(frozen.ok());
        auto job = submit(p, *frozen, options);
        QVERIFY(job.ok());
        auto e = cluster::runWorkerUnit(job->dir, 0, 1);
        QVERIFY2(!e, e ? e->message.c_str() : "");
        {  // one byte of the features changed after the unit ran
            std::fstream f(job->dir / kAdamixInputsFile, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(100);
            f.put('\x7f');
        }
        auto merged = cluster::mergeJobs(p);
        QVERIFY(!merged.ok());
        QVERIFY2(merged.error().message.find("SHA-256") != std::string::npos, merged.error().message.c_str());
        QVERIFY(p.runs().value().empty());
        fs::remove(job->dir / "units" / "unit-0.json");
        auto rerun = cluster::runWorkerUnit(job->dir, 0, 1);
        QVERIFY(rerun);
        QVERIFY2(rerun->message.find(kAdamixInputsFile) != std::string::npos, rerun->message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestAdamixUnits)
#include "tst_adamix_units.moc"
