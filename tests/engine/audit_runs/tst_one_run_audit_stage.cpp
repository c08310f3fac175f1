// The one-run audit of a study's own fine-tuning on a tiny generated image study (8×8 images,
// split B ≈ 180): what it stores (a run of method "audit", one non-private ledger entry, an
// AuditRecord whose details name "kind": "one-run" and whose counts are the guesses' confusion
// matrix), the verdict read back from it, the two controls, and refusals that store nothing.
//
// Why DP-SGD is judged at 99.9%: ε_LB is a lower bound at the audit's confidence, so a correct
// mechanism exceeds its claim with probability at most 1 − confidence per audit. At 95% one seed
// in twenty could fail by chance; at 99.9% a failure of this test (fixed seeds) is a bug.
#include "engine/audit_runs/one_run_audit_stage.h"
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/privacy/one_run_bound.h"
#include "engine/project/project_opener.h"
#include "engine/train/model.h"
#include "tests/engine/pipeline/tiny_image_study.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <fstream>

using namespace dpmix;
using namespace dpmix::audit_runs;
using dpmix::test_support::str;
using training_audit::AuditedMechanism;

namespace {

// The study's fine-tuning: the small CNN, 120 steps of expected batch 30 (q ≈ 0.12 on split B and
// the included canaries, so an included canary is sampled about 15 times; at 60 steps the control
// found only 22–25 of 32, too close to chance for a test).
const std::string kSpec = R"({
  "name": "tiny-one-run-audit",
)" + testing::tinyStudyData() +
                          R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.25, "composition": "parallel"},
  "stages": {"finetune": {"mechanism": "dp-sgd", "clip": 1, "batch": 30, "lr": 0.5, "steps": 120}},
  "seeds": [0]
})";

OneRunAuditStageOptions quick(AuditedMechanism m, std::uint64_t seed = 1) {
    OneRunAuditStageOptions o;
    o.task = "ab";
    o.mechanism = m;
    o.canaries = 128;  // two blocks of 64 orthogonal directions
    o.guesses = 16;
    o.seed = seed;
    return o;
}

}  // namespace

class TestOneRunAuditStage : public QObject {
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

    void theNoiselessControlFindsLeakageAndIsStored() {
        auto project = project::ProjectFile::open(projectFile_).value();
        for (std::uint64_t seed : {1, 2}) {
            const auto r = runOneRunAuditStage(project, quick(AuditedMechanism::Sgd, seed)).value();
            qInfo("sgd seed %d: %lld of %lld correct, epsilon_LB %.3f", int(seed), r.correct, r.guesses, r.epsilonLB);
            QVERIFY2(r.epsilonLB > 0.0, str("seed ", seed, ": ", r.correct, " of ", r.guesses).c_str());
            QCOMPARE(r.name, std::string("finetune-one-run-sgd-large-norm"));
            QCOMPARE(r.noise, 0.0);
            QCOMPARE(r.steps, 120LL);
            QCOMPARE(r.trainingSize, r.splitB + r.included);
            const auto run = project.run(r.runId).value();
            QCOMPARE(run.method, std::string("audit"));
            QVERIFY(run.status == project::RunStatus::Done);
            QVERIFY(!run.epsilon.has_value());  // the control claims nothing
            const auto ledgers = project.ledgers(r.runId).value();
            QCOMPARE(ledgers.size(), std::size_t(1));
            QVERIFY(ledgers[0].ledgerJson.find("non-private") != std::string::npos);
            const auto records = project.audits(r.runId).value();
            QCOMPARE(records.size(), std::size_t(1));
            const auto& a = records[0];
            const auto details = nlohmann::json::parse(a.detailsJson);
            QCOMPARE(details["kind"].get<std::string>(), std::string("one-run"));
            QCOMPARE(details["mechanism"].get<std::string>(), std::string("sgd"));
            QVERIFY(!details.contains("claimed_epsilon"));
            QCOMPARE(details["canaries"].get<long long>(), 128LL);
            QCOMPARE(details["guesses"].get<long long>(), 32LL);
            QCOMPARE(details["correct"].get<long long>(), r.correct);
            // The counts are the guesses' confusion matrix: r = N0 + N1, v = r − FP − FN.
            QCOMPARE(a.counts.negatives + a.counts.positives, 32LL);
            QCOMPARE(32 - a.counts.falsePositives - a.counts.falseNegatives, r.correct);
            QCOMPARE(a.epsilonLowerBound, r.epsilonLB);
            QCOMPARE(a.epsilonLowerBound, privacy::oneRunEpsilonLowerBound({128, 32, r.correct}, 1e-5, 0.95).value());
            QVERIFY(!audit::mechanismAuditFrom(a.runId, a.name, a.detailsJson, a.counts, a.delta, a.confidence));
        }
    }

    void dpSgdStaysBelowItsClaimAndIsJudged() {
        auto project = project::ProjectFile::open(projectFile_).value();
        for (std::uint64_t seed : {1, 2}) {
            auto o = quick(AuditedMechanism::DpSgd, seed);
            o.epsilon = 1.0;
            o.confidence = 0.999;
            const auto r = runOneRunAuditStage(project, o).value();
            qInfo("dp-sgd seed %d: %lld of %lld correct, epsilon_LB %.3f, sigma %.3f", int(seed), r.correct, r.guesses,
                  r.epsilonLB, r.noise);
            QVERIFY2(r.epsilonLB <= 1.0, str("seed ", seed, ": epsilon_LB ", r.epsilonLB).c_str());
            QVERIFY(r.noise > 0.0);
            QCOMPARE(*project.run(r.runId).value().epsilon, 1.0);
        }
        // Both come back as evidence about DP-SGD's claim ε = 1, and do not refute it.
        const auto audits = storedMechanismAudits(project).value();
        long long oneRun = 0;
        for (const auto& a : audits) oneRun += a.oneRun.has_value() && a.mechanism == "dp-sgd";
        QCOMPARE(oneRun, 2LL);
        const auto v = audit::claimVerdict("dp-sgd", 1.0, 1e-5, audits);
        QCOMPARE(v.audits, 2);
        QCOMPARE(v.status, audit::ClaimStatus::NotRefuted);
    }

    void theDirichletMechanismRunsWithItsR() {
        auto project = project::ProjectFile::open(projectFile_).value();
        auto o = quick(AuditedMechanism::Dirichlet);
        o.steps = 10;
        const auto r = runOneRunAuditStage(project, o).value();
        QCOMPARE(r.steps, 10LL);
        const auto details = nlohmann::json::parse(project.audits(r.runId).value()[0].detailsJson);
        QCOMPARE(details["claimed_epsilon"].get<double>(), 2.0);  // the spec's first ε
        QVERIFY(details["r"].get<double>() > 0.0);
    }

    // A stored run's own fine-tuning values (the workbench's Advanced section) replace the spec's:
    // the audit trains what the run trained.
    void aRunsOwnFineTuningValuesReplaceTheSpecs() {
        auto project = project::ProjectFile::open(projectFile_).value();
        auto o = quick(AuditedMechanism::DpSgd);
        project::FinetuneStage stage = project.spec().finetune;
        stage.batch = stage.batch / 2;
        stage.clip = 0.5;
        stage.lr = 0.02;
        stage.steps = 7;
        o.finetune = stage;
        const auto r = runOneRunAuditStage(project, o).value();
        QCOMPARE(r.steps, 7LL);
        QCOMPARE(r.batch, stage.batch);
        QCOMPARE(r.clip, 0.5);
        QCOMPARE(r.learningRate, 0.02);
        QVERIFY(r.batch != project.spec().finetune.batch);
    }

    void refusalsStoreNothing() {
        auto project = project::ProjectFile::open(projectFile_).value();
        const auto before = project.runs().value().size();
        const auto refused = [&](OneRunAuditStageOptions o, const std::string& field) {
            const auto r = runOneRunAuditStage(project, o);
            QVERIFY(!r.ok());
            QCOMPARE(r.error().field, field);
        };
        auto o = quick(AuditedMechanism::DpSgd);
        o.task = "nope";
        refused(o, "task");
        o = quick(AuditedMechanism::DpSgd);
        o.canaries = 1;
        refused(o, "canaries");
        o = quick(AuditedMechanism::DpSgd);
        o.guesses = 65;  // 2k > m
        refused(o, "guesses");
        o = quick(AuditedMechanism::Sgd);
        o.epsilon = 1.0;  // the control claims nothing
        refused(o, "epsilon");
        o = quick(AuditedMechanism::DpSgd);
        o.steps = 0;
        refused(o, "steps");
        o = quick(AuditedMechanism::DpSgd);
        o.canary = training_audit::TrainingCanaryKind::FlippedLabel;  // 128 > the ≈ 30 validation images
        refused(o, "canaries");
        o = quick(AuditedMechanism::Dirichlet);
        o.whiteBox = true;  // gradient canaries audit DP-SGD only
        refused(o, "white-box");
        QCOMPARE(project.runs().value().size(), before);
    }

    // White-box (Dirac canary gradients), in a project of its own so that the counts of the
    // black-box audits above stay theirs.
    void theWhiteBoxControlFindsLeakageAndIsStored() {
        auto project = whiteBoxProject();
        for (std::uint64_t seed : {1, 2}) {
            auto o = quick(AuditedMechanism::Sgd, seed);
            o.whiteBox = true;
            const auto r = runOneRunAuditStage(project, o).value();
            qInfo("white-box sgd seed %d: %lld of %lld correct, epsilon_LB %.3f", int(seed), r.correct, r.guesses,
                  r.epsilonLB);
            QVERIFY2(r.epsilonLB > 1.0, str("seed ", seed, ": ", r.correct, " of ", r.guesses).c_str());
            QCOMPARE(r.name, std::string("finetune-one-run-white-box-sgd-dirac-gradient"));
            QCOMPARE(r.noise, 0.0);
            QCOMPARE(r.trainingSize, r.splitB + r.included);  // the included gradients count as examples
            QCOMPARE(r.q, 30.0 / static_cast<double>(r.trainingSize));
            const auto ledgers = project.ledgers(r.runId).value();
            QCOMPARE(ledgers.size(), std::size_t(1));
            QVERIFY(ledgers[0].ledgerJson.find("non-private") != std::string::npos);
            const auto a = project.audits(r.runId).value().at(0);
            const auto details = nlohmann::json::parse(a.detailsJson);
            QCOMPARE(details["kind"].get<std::string>(), std::string("one-run"));
            QCOMPARE(details["variant"].get<std::string>(), std::string("white-box"));
            QCOMPARE(details["canary"].get<std::string>(), std::string("dirac-gradient"));
            QCOMPARE(32 - a.counts.falsePositives - a.counts.falseNegatives, r.correct);
            QCOMPARE(a.epsilonLowerBound, privacy::oneRunEpsilonLowerBound({128, 32, r.correct}, 1e-5, 0.95).value());
        }
    }

    void whiteBoxDpSgdStaysBelowItsClaimAndIsJudged() {
        auto project = whiteBoxProject();
        for (std::uint64_t seed : {1, 2}) {
            auto o = quick(AuditedMechanism::DpSgd, seed);
            o.whiteBox = true;
            o.epsilon = 1.0;
            o.confidence = 0.999;
            const auto r = runOneRunAuditStage(project, o).value();
            qInfo("white-box dp-sgd seed %d: %lld of %lld correct, epsilon_LB %.3f, sigma %.3f", int(seed), r.correct,
                  r.guesses, r.epsilonLB, r.noise);
            QVERIFY2(r.epsilonLB <= 1.0, str("seed ", seed, ": epsilon_LB ", r.epsilonLB).c_str());
            QVERIFY(r.noise > 0.0);
        }
        // A white-box record is judged as any one-run record: ε_LB recomputed from m, r and v.
        const auto audits = storedMechanismAudits(project).value();
        long long whiteBox = 0;
        for (const auto& a : audits) whiteBox += a.oneRun.has_value() && a.mechanism == "dp-sgd";
        QCOMPARE(whiteBox, 2LL);
        const auto v = audit::claimVerdict("dp-sgd", 1.0, 1e-5, audits);
        QCOMPARE(v.audits, 2);
        QCOMPARE(v.status, audit::ClaimStatus::NotRefuted);
    }

private:
    project::ProjectFile whiteBoxProject() {
        const std::string path = dir_.path() + "/white-box.dpmix";
        if (!std::ifstream(path).good()) {
            auto created =
                project::createProjectFromSpecFile(dir_.path() + "/tiny.json", path, testing::dataLayerSummarizer());
            if (!created.ok()) qFatal("%s", created.error().message.c_str());
        }
        return project::ProjectFile::open(path).value();
    }
};

QTEST_APPLESS_MAIN(TestOneRunAuditStage)
#include "tst_one_run_audit_stage.moc"
