// The k-scaling as cluster work units without Slurm: a stand-in sbatch accepts the job, each
// one-vs-rest class's unit runs in this process (as `dpmix worker` would, one thread), and the
// merge stores the one k-scaling run, compared with the local experiment on a copy of the same
// project: the same configuration, curves and slope bit for bit and the same ledger; merging
// twice stores nothing twice; a job with a class missing stores nothing.
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/kscaling_units.h"
#include "engine/executor/run_units.h"
#include "engine/experiment_runs/mixture_experiment_runs.h"
#include "engine/project/project_opener.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "unit_job_fixture.h"

#include "tests/support/unit_test.h"

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::executor;
using namespace dpmix::experiment_runs;
namespace fs = std::filesystem;

namespace {

// k-scaling derives its class proxy from single-class public tasks: one per class.
const std::string kSpec = R"({
  "name": "tiny-k-scaling",
)" + testing::tinyStudySources() +
                          R"(  "tasks": {
    "public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]}, {"name": "c", "classes": ["c"]},
               {"name": "d", "classes": ["d"]}],
    "sensitive": [{"name": "ab", "classes": ["a", "b"]}]
  },
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.3},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 5}},
  "seeds": [0]
})";

// The k-scaling run of a project as text: row, curves and metrics (IEEE-754 bits), ledgers.
std::string kScalingRun(const project::ProjectFile& p, long long id) {
    const auto r = p.run(id).value();
    std::string text = r.method + "|" + r.configJson + "|" + project::toString(r.status);
    const auto bits = testing::bitsText;
    for (const auto& name : p.curveNames(id).value()) {
        text += "|" + name;
        for (const auto& pt : p.curve(id, name).value()) text += " " + std::to_string(pt.step) + ":" + bits(pt.value);
    }
    for (const auto& m : p.metrics(id).value()) text += "|" + m.name + "=" + bits(m.value);
    for (const auto& l : p.ledgers(id).value()) text += "|" + l.ledgerJson;
    return text;
}

KScalingStageOptions tinyOptions() {
    KScalingStageOptions o;
    o.ks = {2, 4};
    o.seeds = 2;
    o.maxClasses = 3;
    o.proxy = testing::quickProxy();
    return o;
}

}  // namespace

class TestKScalingUnits : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    project::ProjectFile freshProject(const std::string& name) {
        return testing::createProjectFromSpecText(dir_.path(), name, kSpec);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        testing::prepareJobFolder(dir_.path(), {{"pub", 200, 1}, {"sens", 600, 2}}, "4444");  // the units run here
    }

    void classUnitsMergeIntoTheLocalExperiment() {
        auto p = freshProject("ks");
        const auto options = tinyOptions();
        auto frozen = freezeKScaling(p, options);
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        QCOMPARE(frozenKScalingClasses(*frozen).value(), 3LL);  // --classes 3
        const long long after = lastRunId(p).value();
        const fs::path localDir = fs::path(dir_.path()) / "ks-local";
        QVERIFY(!snapshotProject(p, localDir));  // the local run's start: the same proxy
        auto local = project::ProjectFile::open(localDir / "snapshot" / "project.dpmix").value();

        const auto units = kScalingWorkUnits(3);
        auto job = cluster::submitJob(p, cluster::JobKind::KScaling, *frozen, units, {}, false);
        QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
        auto e = testing::runUnitsHere(job->dir, {2, 0});
        QVERIFY2(!e, e ? e->c_str() : "");
        e = testing::mergeWaitsForOneUnit(p, after);  // class 1 missing: the summary needs every class
        QVERIFY2(!e, e ? e->c_str() : "");
        e = testing::runUnitsHere(job->dir, {1});
        QVERIFY2(!e, e ? e->c_str() : "");
        auto merged = cluster::mergeJobs(p);
        QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().message.c_str());
        QVERIFY(merged->front().imported);

        auto report = runKScalingExperiment(local, options);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(merged->front().runId, report->runId);  // the same project before: the same id
        const std::string stored = kScalingRun(p, merged->front().runId);
        QCOMPARE(stored, kScalingRun(local, report->runId));
        QVERIFY(stored.find("excess/") != std::string::npos);

        auto again = cluster::mergeJobs(p);
        QVERIFY(again.ok());
        QVERIFY(again->front().alreadyMerged);
        QCOMPARE(lastRunId(p).value(), merged->front().runId);
        auto chain = p.verifyChain();
        QVERIFY(chain.ok() && chain->ok);
    }

    void aMalformedFrozenKScalingIsRefused() {
        QVERIFY(!frozenKScalingClasses("{}").ok());
        QVERIFY(!runKScalingUnit(R"({"format": "dpmix-kscaling/1", "options": {}})", 0, 1).ok());
    }
};

QTEST_GUILESS_MAIN(TestKScalingUnits)
#include "tst_kscaling_units.moc"
