// The mixture audit as work units (audit_units.h, cluster_jobs.h) without a cluster: the frozen
// spec's blocks of runs score every run exactly as the local audit does, and the audit finished
// from them stores the same record; the unit list covers each world once. The job directory's
// life on a real Slurm is tests/app/cli/tst_cli_cluster.cpp (label cluster).
#include "engine/audit_runs/audit_stage.h"
#include "engine/executor/audit_units.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/project/project_opener.h"
#include "tests/engine/pipeline/tiny_image_study.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <cstring>
#include <fstream>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::audit_runs;
using namespace dpmix::executor;

namespace {

const std::string kSpec = R"({
  "name": "tiny-audit-units",
)" + testing::tinyStudyData() +
                          R"(  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.25, "composition": "parallel"},
  "stages": {"mixture": {"clip": 13, "batch": 30, "lr": 1.0, "steps": 15}},
  "seeds": [0]
})";

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

class TestAuditUnits : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string projectFile_;

    void checkUnitsEqualLocal(audit::CanaryKind canary) {
        auto opened = project::ProjectFile::open(projectFile_);
        QVERIFY(opened.ok());
        auto project = std::move(opened).value();
        AuditStageOptions o;
        o.task = "ac";
        o.canary = canary;
        o.runs = 30;
        o.seed = 11;
        o.proxy = testing::quickProxy();
        auto local = runAuditStage(project, o);
        QVERIFY2(local.ok(), local.ok() ? "" : local.error().message.c_str());
        auto frozen = freezeAuditStage(project, o);
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        auto units = cluster::auditWorkUnits(30, 6, o.seed);
        QVERIFY(units.ok());
        std::vector<audit::CanaryAuditBlock> blocks;
        for (const auto& u : *units) {
            const auto p = nlohmann::json::parse(u.paramsJson);
            const bool in = p["world"] == "in";
            // Threads differ from the local audit's: the scores must not.
            auto block = runFrozenAuditUnit(*frozen, in, p["begin"], p["end"], 1 + static_cast<int>(u.id % 2));
            QVERIFY2(block.ok(), block.ok() ? "" : block.error().message.c_str());
            const auto& scores = in ? local->result.scoresIn : local->result.scoresOut;
            for (long long r = block->begin; r < block->end; ++r)
                QVERIFY2(sameBits(block->scores[static_cast<std::size_t>(r - block->begin)],
                                  scores[static_cast<std::size_t>(r)]),
                         ("run " + std::to_string(r)).c_str());
            blocks.push_back(std::move(block).value());
        }
        auto stored = storeFrozenAudit(project, *frozen, blocks, "test provenance");
        QVERIFY2(stored.ok(), stored.ok() ? "" : stored.error().message.c_str());
        QVERIFY(sameBits(stored->result.epsilonLB, local->result.epsilonLB));
        QCOMPARE(stored->result.meanCanarySamples, local->result.meanCanarySamples);
        auto a = project.audits(local->runId), b = project.audits(stored->runId);
        QVERIFY(a.ok() && b.ok() && a->size() == 1 && b->size() == 1);
        QCOMPARE(b->front().detailsJson, a->front().detailsJson);
        QCOMPARE(project.run(stored->runId)->configJson, project.run(local->runId)->configJson);

        // A block missing: refused, nothing stored.
        const auto before = project.runs()->size();
        blocks.pop_back();
        auto incomplete = storeFrozenAudit(project, *frozen, blocks, "test provenance");
        QVERIFY(!incomplete.ok());
        QCOMPARE(project.runs()->size(), before);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path();
        testing::writeStudyImages(d, "pub", 200, 1);
        testing::writeStudyImages(d, "sens", 400, 2);
        std::ofstream(d + "/tiny.json") << kSpec;
        projectFile_ = d + "/tiny.dpmix";
        auto created =
            project::createProjectFromSpecFile(d + "/tiny.json", projectFile_, testing::dataLayerSummarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
    }

    void unitsCoverEachWorldOnce() {
        auto units = cluster::auditWorkUnits(400, 8, 5);
        QVERIFY(units.ok());
        QCOMPARE(units->size(), std::size_t(8));
        long long out = 0, in = 0;
        for (const auto& u : *units) {
            const auto p = nlohmann::json::parse(u.paramsJson);
            (p["world"] == "in" ? in : out) += p["end"].get<long long>() - p["begin"].get<long long>();
            QCOMPARE(u.seed, std::uint64_t(5));
        }
        QCOMPARE(out, 400LL);
        QCOMPARE(in, 400LL);
        QVERIFY(!cluster::auditWorkUnits(400, 7, 0).ok());  // odd
        QVERIFY(!cluster::auditWorkUnits(3, 8, 0).ok());    // more units than runs
    }

    void maxClipUnitsEqualTheLocalAudit() { checkUnitsEqualLocal(audit::CanaryKind::MaxClip); }
    void naturalUnitsEqualTheLocalAudit() { checkUnitsEqualLocal(audit::CanaryKind::Natural); }

    void sbatchScriptCarriesTheOptions() {
        cluster::SlurmOptions o;
        o.partition = "gpu";
        o.time = "01:00:00";
        o.account = "proj42";
        o.cpusPerTask = 4;
        o.gpusPerTask = 1;
        o.setup = "module load dpmix";
        o.program = "/opt/dpmix/bin/dpmix";
        const std::string s = cluster::sbatchScript("/shared/F.dpmix.jobs/j1", "j1", o);
        for (const char* want :
             {"#SBATCH --partition=gpu", "#SBATCH --time=01:00:00", "#SBATCH --account=proj42",
              "#SBATCH --cpus-per-task=4", "#SBATCH --gpus-per-task=1", "module load dpmix",
              "'/opt/dpmix/bin/dpmix' worker '/shared/F.dpmix.jobs/j1' --unit \"${SLURM_ARRAY_TASK_ID}\"",
              "#SBATCH --output=/shared/F.dpmix.jobs/j1/logs/unit-%a.%A.log"})
            QVERIFY2(s.find(want) != std::string::npos, want);
    }
};

QTEST_APPLESS_MAIN(TestAuditUnits)
#include "tst_audit_units.moc"
