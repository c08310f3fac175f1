// The training-audit stage on a tiny generated image study: what it stores (a run of method
// "audit", one non-private ledger entry, an AuditRecord naming the mechanism and its claim), how
// the stored audits come back for the verdict — beside a Dirichlet ledger entry at the same
// claim, never beside a mixture audit's record — and its input checks.
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_opener.h"
#include "engine/train/model.h"
#include "tests/engine/pipeline/tiny_image_study.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <fstream>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::audit_runs;

namespace {

const std::string kSpec = R"({
  "name": "tiny-training-audit",
)" + testing::tinyStudyData() +
                          R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.25, "composition": "parallel"},
  "seeds": [0]
})";

TrainingAuditStageOptions quick(training_audit::AuditedMechanism m, training_audit::TrainingCanaryKind c) {
    TrainingAuditStageOptions o;
    o.task = "ab";
    o.mechanism = m;
    o.canary = c;
    o.runs = 4;
    o.examples = 40;
    o.batch = 10;
    o.steps = 5;
    o.threads = 1;
    return o;
}

}  // namespace

class TestTrainingAuditStage : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string projectFile_;

private Q_SLOTS:
    void initTestCase() {
        train::setTorchThreads(1);
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path();
        testing::writeStudyImages(d, "pub", 100, 1);
        testing::writeStudyImages(d, "sens", 300, 2);  // train ≈ 240 → split B ≈ 180 at ρ = 0.25
        std::ofstream(d + "/tiny.json") << kSpec;
        projectFile_ = d + "/tiny.dpmix";
        auto created =
            project::createProjectFromSpecFile(d + "/tiny.json", projectFile_, testing::dataLayerSummarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
    }

    void eachCanaryRunsAndIsStored() {
        auto project = project::ProjectFile::open(projectFile_).value();
        using K = training_audit::TrainingCanaryKind;
        for (const K c : {K::FlippedLabel, K::LargeNorm, K::GradientAligned}) {
            const auto report =
                runTrainingAuditStage(project, quick(training_audit::AuditedMechanism::Dirichlet, c)).value();
            QCOMPARE(report.name, std::string("finetune-dirichlet-") + training_audit::toString(c));
            const auto run = project.run(report.runId).value();
            QCOMPARE(run.method, std::string("audit"));
            QVERIFY(run.status == project::RunStatus::Done);
            QCOMPARE(*run.epsilon, 2.0);  // the spec's first ε is the claim
            const auto ledgers = project.ledgers(report.runId).value();
            QCOMPARE(ledgers.size(), std::size_t(1));
            QVERIFY(ledgers[0].ledgerJson.find("non-private") != std::string::npos);
            const auto records = project.audits(report.runId).value();
            QCOMPARE(records.size(), std::size_t(1));
            const auto details = nlohmann::json::parse(records[0].detailsJson);
            QCOMPARE(details["mechanism"].get<std::string>(), std::string("dirichlet"));
            QCOMPARE(details["claimed_epsilon"].get<double>(), 2.0);
            QCOMPARE(details["examples"].get<long long>(), 40LL);
            QCOMPARE(records[0].counts.negatives + records[0].counts.positives, 4LL);  // 2 + 2 EVAL runs
            QVERIFY(!details.contains("canary_index"));  // which sensitive image: not stored
        }
    }

    void aDirichletEntryAtTheClaimGetsTheVerdict() {
        auto project = project::ProjectFile::open(projectFile_).value();
        // A mixture audit's record (no mechanism in its details) is not evidence about fine-tuning.
        const long long mixture = project.addRun({"audit", "ab", 2.0, 0, "{}"}).value();
        (void)project.addAudit({mixture, "max-clip", {0, 0, 500, 500}, 1e-5, 0.95, 4.9, R"({"canary":"max-clip"})"})
            .value();

        const auto audits = storedMechanismAudits(project).value();
        QCOMPARE(audits.size(), std::size_t(3));  // the three Dirichlet audits above, not the mixture one
        for (const auto& a : audits) QCOMPARE(a.mechanism, std::string("dirichlet"));

        // A fine-tuning run's entry: r calibrated to ε = 2 records an ε within 1e-9 of 2.
        const double r = privacy::calibrateDirichletR(2.0, 1e-5, 3.0, 0.01, 100).value().r;
        const auto entry = privacy::dirichletEntry("finetune", "B", 3.0, r, 0.01, 100, 1e-5);
        QVERIFY(std::abs(entry.epsilon - 2.0) < 1e-6);
        QCOMPARE(audit::auditedMechanismOf(entry), std::string("dirichlet"));
        const auto v = audit::claimVerdict(audit::auditedMechanismOf(entry), entry.epsilon, entry.delta, audits);
        QCOMPARE(v.audits, 3);
        QVERIFY(v.status != audit::ClaimStatus::NotAudited);
        // At another claim the same audits are not this claim's evidence.
        const auto elsewhere = audit::claimVerdict("dirichlet", 0.5, 1e-5, audits);
        QCOMPARE(elsewhere.status, audit::ClaimStatus::NotAudited);
        QCOMPARE(audit::auditedMechanismOf(privacy::nonPrivateEntry("audit", "A", "x")), std::string());

        // The project's summary names the claim of a fine-tuning run's Dirichlet entry once.
        const long long finetuned = project.addRun({"uniform", "ab", 2.0, 0, "{}"}).value();
        privacy::Ledger ledger;
        ledger.record(entry);
        (void)project.recordLedger(finetuned, ledger).value();
        const auto lines = projectClaimVerdicts(project).value();
        QCOMPARE(lines.size(), std::size_t(1));
        QVERIFY2(lines[0].rfind("Dirichlet mechanism at ε = 2, δ = 1e-05: ", 0) == 0, lines[0].c_str());
    }

    void badOptionsChangeNothing() {
        auto project = project::ProjectFile::open(projectFile_).value();
        const auto before = project.runs().value().size();
        auto o = quick(training_audit::AuditedMechanism::DpSgd, training_audit::TrainingCanaryKind::LargeNorm);
        o.task = "nope";
        QCOMPARE(runTrainingAuditStage(project, o).error().field, std::string("task"));
        o = quick(training_audit::AuditedMechanism::DpSgd, training_audit::TrainingCanaryKind::LargeNorm);
        o.examples = 100000;  // more than split B holds
        QCOMPARE(runTrainingAuditStage(project, o).error().field, std::string("examples"));
        o.examples = 40;
        o.batch = 41;
        QCOMPARE(runTrainingAuditStage(project, o).error().field, std::string("batch"));
        QCOMPARE(project.runs().value().size(), before);
    }
};

QTEST_APPLESS_MAIN(TestTrainingAuditStage)
#include "tst_training_audit_stage.moc"
