// The ε and ρ sweeps as cluster work units without Slurm: a stand-in sbatch accepts the job, each
// sweep point's unit runs in this process (as `dpmix worker` would, one thread) and out of order,
// merges store the units done from unit 0 on as they land, and the runs are compared with the
// local sweep on a copy of the same project: the same
// run rows (method, task, ε, configuration), metrics bit for bit and ledgers — one stored run per
// (task, point) either way, stored point by point instead of task by task; a second merge imports
// nothing and the hash chain verifies.
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/run_units.h"
#include "engine/executor/sweep_units.h"
#include "engine/experiment_runs/mixture_experiment_runs.h"
#include "engine/project/project_opener.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "unit_job_fixture.h"

#include "tests/support/unit_test.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::executor;
using namespace dpmix::experiment_runs;
namespace fs = std::filesystem;

namespace {

const std::string kSpec = R"({
  "name": "tiny-sweep",
)" + testing::tinyStudyData() +
                          R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 5}},
  "seeds": [0]
})";

// A stored run as text: its row, metrics (IEEE-754 bits) and ledgers; keyed by task and config.
std::map<std::string, std::string> runsAfter(const project::ProjectFile& p, long long after,
                                             std::vector<long long>* order = nullptr) {
    std::map<std::string, std::string> out;
    for (const auto& r : p.runs().value()) {
        if (r.id <= after) continue;
        std::string text = r.method + "|" + r.task + "|" + std::to_string(r.seed) + "|" + r.configJson + "|" +
                           project::toString(r.status) + "|";
        if (r.epsilon) text += testing::bitsText(*r.epsilon);
        for (const auto& m : p.metrics(r.id).value()) text += "|" + m.name + "=" + testing::bitsText(m.value);
        for (const auto& l : p.ledgers(r.id).value()) text += "|" + l.ledgerJson;
        out[r.task + " " + r.configJson] = text;
        if (order) order->push_back(r.id);
    }
    return out;
}

}  // namespace

class TestSweepUnits : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    project::ProjectFile freshProject(const std::string& name) {
        return testing::createProjectFromSpecText(dir_.path(), name, kSpec);
    }

    // Submits `kind` with `options` as a job, runs every unit here, merges, and compares the
    // merged runs with the local sweep's on a copy of the project taken at submission.
    void unitsMergeIntoTheLocalSweep(const std::string& name, SweepKind kind, const SweepStageOptions& options) {
        auto p = freshProject(name);
        auto frozen = freezeSweep(p, kind, options);
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        const long long after = lastRunId(p).value();
        QCOMPARE(p.runs().value().back().method, std::string("proxy"));  // trained once, at submission
        const auto units = sweepWorkUnits(options.values);
        QCOMPARE(units.size(), options.values.size());  // one per point

        const fs::path localDir = fs::path(dir_.path()) / (name + "-local");
        QVERIFY(!snapshotProject(p, localDir));
        auto local = project::ProjectFile::open(localDir / "snapshot" / "project.dpmix").value();

        auto job = cluster::submitJob(p, cluster::JobKind::Sweep, *frozen, units, {}, false,
                                      [&](const fs::path& d) { return snapshotProject(p, d); });
        QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
        QVERIFY(runsAfter(p, after).empty());  // workers never touch the project
        // Units land out of order: a merge stores the units done from unit 0 on, and no further.
        auto runUnit = [&](long long id) {
            auto e = cluster::runWorkerUnit(job->dir, id, 1);
            QVERIFY2(!e, e ? e->message.c_str() : "");
        };
        runUnit(1);
        auto early = cluster::mergeJobs(p);
        QVERIFY2(early.ok(), early.ok() ? "" : early.error().message.c_str());
        QVERIFY(early->front().runIds.empty());  // unit 0 is missing: nothing can be stored in order
        QCOMPARE(early->front().waiting.size(), units.size() - 1);
        QVERIFY(runsAfter(p, after).empty());
        runUnit(0);
        auto partial = cluster::mergeJobs(p);
        QVERIFY2(partial.ok(), partial.ok() ? "" : partial.error().message.c_str());
        QCOMPARE(partial->front().runIds.size(), std::size_t(4));  // units 0 and 1, 2 tasks each
        QCOMPARE(partial->front().waiting.size(), units.size() - 2);
        for (std::size_t id = 2; id < units.size(); ++id) runUnit(static_cast<long long>(id));
        auto merged = cluster::mergeJobs(p);
        QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().message.c_str());
        QVERIFY(merged->front().waiting.empty());
        QCOMPARE(merged->front().runIds.size(), 2 * (units.size() - 2));  // only what was not stored yet

        if (kind == SweepKind::Rho) {
            auto r = runRhoSweepExperiment(local, options);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        } else {
            auto r = runEpsilonSweepExperiment(local, options);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        }
        std::vector<long long> order;
        const auto clusterRuns = runsAfter(p, after, &order), localRuns = runsAfter(local, after);
        // One run per (task, point): 2 sensitive tasks.
        QCOMPARE(localRuns.size(), 2 * options.values.size());
        QCOMPARE(clusterRuns.size(), localRuns.size());
        for (const auto& [key, text] : localRuns) {
            QVERIFY2(clusterRuns.count(key), key.c_str());
            QCOMPARE(clusterRuns.at(key), text);
        }
        // Point by point: the first unit's runs (both tasks at the first value) come first.
        const auto first = p.run(order[0]).value(), second = p.run(order[1]).value();
        QVERIFY(first.task != second.task);
        QCOMPARE(first.configJson.substr(0, 40), second.configJson.substr(0, 40));

        auto again = cluster::mergeJobs(p);
        QVERIFY(again.ok());
        QVERIFY(again->front().alreadyMerged);
        QCOMPARE(runsAfter(p, after).size(), localRuns.size());
        auto chain = p.verifyChain();
        QVERIFY(chain.ok() && chain->ok);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        testing::prepareJobFolder(dir_.path(), {{"pub", 200, 1}, {"sens", 600, 2}}, "4343");  // the units run here
    }

    void epsilonSweepUnitsMergeIntoTheLocalSweep() {
        SweepStageOptions o;
        o.values = {0.5, 2.0, std::numeric_limits<double>::infinity()};
        o.seeds = 2;
        o.proxy = testing::quickProxy();
        unitsMergeIntoTheLocalSweep("eps", SweepKind::Epsilon, o);
    }

    void rhoSweepUnitsMergeIntoTheLocalSweep() {
        SweepStageOptions o;
        o.values = {0.1, 0.3};
        o.seeds = 2;
        o.epsilon = 1.0;
        o.proxy = testing::quickProxy();
        unitsMergeIntoTheLocalSweep("rho", SweepKind::Rho, o);
    }

    void badOptionsAreRefusedBeforeAnythingIsStored() {
        auto p = freshProject("bad");
        SweepStageOptions o;
        o.values = {};
        o.proxy = testing::quickProxy();
        auto frozen = freezeSweep(p, SweepKind::Epsilon, o);
        QVERIFY(!frozen.ok());
        QCOMPARE(p.runs().value().size(), std::size_t(0));  // not even a proxy
    }
};

QTEST_GUILESS_MAIN(TestSweepUnits)
#include "tst_sweep_units.moc"
