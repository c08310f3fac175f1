// The audit stage and the experiments on a tiny generated image study (IDX files, a spec, a
// project): what they store, where the natural canary comes from, and their input checks.
#include "engine/audit_runs/audit_stage.h"
#include "engine/experiment_runs/mixture_experiment_runs.h"
#include "engine/privacy/audit_bound.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/prv_accountant.h"
#include "engine/project/project_opener.h"
#include "tests/engine/pipeline/tiny_image_study.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <cmath>
#include <fstream>
#include <random>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::audit_runs;
using namespace dpmix::experiment_runs;

namespace {

using testing::writeStudyImages;

const std::string kSpec = R"({
  "name": "tiny-audit",
  "description": "4 classes, 3 public tasks of which 2 single classes are missing",
)" + testing::tinyStudyData() +
                          R"(  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.25, "composition": "parallel"},
  "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 20}},
  "seeds": [0]
})";

project::SourceSummarizer summarizer() { return testing::dataLayerSummarizer(); }

ProxyOptions quickProxy() { return testing::quickProxy(); }

}  // namespace

class TestAuditStage : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string projectFile_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path();
        writeStudyImages(d, "pub", 200, 1);
        writeStudyImages(d, "sens", 600, 2);  // train ≈ 480 → split A ≈ 120 at ρ = 0.25
        std::ofstream(d + "/tiny.json") << kSpec;
        projectFile_ = d + "/tiny.dpmix";
        auto created = project::createProjectFromSpecFile(d + "/tiny.json", projectFile_, summarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
    }

    // q = 1 (the expected batch exceeds split A) and no noise: every run of a world is the same
    // deterministic computation, so the attack separates the worlds perfectly on the 20 + 20
    // EVAL runs. Hand-derived bound: Clopper–Pearson upper limit for 0 of 20 at 95% (two-sided)
    // is 1 − 0.025^(1/20) = 0.168433, and ε_LB = log((1 − δ − 0.168433) / 0.168433) = 1.59677.
    void noNoiseMaxClipAuditIsStoredWithItsRecordAndLedger() {
        auto opened = project::ProjectFile::open(projectFile_);
        QVERIFY(opened.ok());
        auto projectFile = std::move(opened).value();
        auto* project = &projectFile;
        AuditStageOptions o;
        o.task = "ac";
        o.canary = audit::CanaryKind::MaxClip;
        o.runs = 40;
        o.noNoise = true;
        o.seed = 3;
        o.proxy = quickProxy();
        auto report = runAuditStage(*project, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        const auto& r = report->result;
        QCOMPARE(report->name, std::string("max-clip-no-noise"));
        // About 480 × 0.25 = 120: the stable split's sizes are Binomial (6 standard deviations).
        QVERIFY(std::abs(report->splitA - 120) <= 60);
        QCOMPARE(r.falsePositives + r.falseNegatives, 0LL);
        QCOMPARE(r.evalIn, 20LL);
        DPMIX_COMPARE_NEAR(r.epsilonLB, 1.59677, 2e-4);
        // Deterministic worlds: no spread of the score within a world, a gap between them.
        QVERIFY(report->scoreStdIn < 1e-12);
        QVERIFY(report->scoreStdOut < 1e-12);
        QVERIFY(std::abs(report->scoreMeanIn - report->scoreMeanOut) > 1e-6);

        auto run = project->run(report->runId);
        QVERIFY(run.ok());
        QCOMPARE(run->method, std::string("audit"));
        QCOMPARE(run->task, std::string("ac"));
        QVERIFY(!run->epsilon.has_value());  // the control claims no ε
        QCOMPARE(run->seed, 3LL);
        QVERIFY(run->status == project::RunStatus::Done);
        auto audits = project->audits(report->runId);
        QVERIFY(audits.ok());
        QCOMPARE(audits->size(), std::size_t(1));
        const auto& a = audits->front();
        QCOMPARE(a.name, std::string("max-clip-no-noise"));
        QCOMPARE(a.counts.positives, 20LL);
        QCOMPARE(a.counts.negatives, 20LL);
        DPMIX_COMPARE_NEAR(a.epsilonLowerBound, r.epsilonLB, 1e-12);
        const auto details = nlohmann::json::parse(a.detailsJson);
        QVERIFY(details.contains("threshold"));
        QVERIFY(details.contains("direction"));
        const double sigma = details["sigma"].get<double>();
        QCOMPARE(sigma, 0.0);
        const std::string claimed = details["claimed_epsilon"].get<std::string>();
        QCOMPARE(claimed, std::string("inf"));
        QVERIFY(details.contains("score_in_std"));
        const std::string sign = details["max_clip_sign"].get<std::string>();
        QCOMPARE(sign, std::string(audit::toString(audit::MaxClipSign::LowerTopSource)));  // the default
        // The audit is recorded as a non-private use of split A, not as a release.
        auto ledgers = project->ledgers(report->runId);
        QVERIFY(ledgers.ok());
        QCOMPARE(ledgers->size(), std::size_t(1));
        const auto ledger = nlohmann::json::parse(ledgers->front().ledgerJson);
        const std::string text = ledger.dump();
        QVERIFY2(text.find("audit runs of the mixture mechanism on split A") != std::string::npos, text.c_str());
    }

    void naturalCanaryIsAHeldOutExampleOfSplitB() {
        auto opened = project::ProjectFile::open(projectFile_);
        QVERIFY(opened.ok());
        auto projectFile = std::move(opened).value();
        auto* project = &projectFile;
        AuditStageOptions o;
        o.task = "ab";
        o.canary = audit::CanaryKind::Natural;
        o.runs = 10;
        o.seed = 5;
        o.proxy = quickProxy();
        auto report = runAuditStage(*project, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->name, std::string("natural"));
        auto sources = project->sources();
        QVERIFY(sources.ok());
        auto study = loadImageStudy(*sources, project->spec(), 0);
        QVERIFY(study.ok());
        auto split = splitForRun(*study, 0.25, 5);
        QVERIFY(split.ok());
        const auto ex = static_cast<std::size_t>(report->canaryExample);
        QVERIFY(std::find(split->a.begin(), split->a.end(), ex) == split->a.end());
        QVERIFY(std::find(split->b.begin(), split->b.end(), ex) != split->b.end());
        // Its label is the task's: class a or b (example i has class i mod 4).
        QCOMPARE(report->canaryLabel, (ex % 4 == 0 || ex % 4 == 1) ? 1 : 0);
        // Deterministic from the seed.
        QCOMPARE(naturalCanaryExample(*split, 5), ex);
        auto run = project->run(report->runId);
        QVERIFY(run.ok());
        QVERIFY(run->epsilon.has_value());
        QCOMPARE(*run->epsilon, 1.0);
        auto audits = project->audits(report->runId);
        QVERIFY(audits.ok() && audits->size() == 1);
        const auto details = nlohmann::json::parse(audits->front().detailsJson);
        QCOMPARE(details["canary_from"].get<std::string>(), std::string("split B"));
        // Which real image it was, and its label, are not stored (no ledger covers them).
        QVERIFY(!details.contains("canary_example") && !details.contains("canary_label"));
    }

    void userLevelAuditUsesACanaryUser() {
        // The same study at user level (3 images per patient): the audit runs Algorithm 2 with a
        // canary user of 3 images; the natural canary (one image) is refused.
        const std::string d = dir_.path();
        testing::writeUserLevelImages(d, "patients", 600, 3, 4);
        std::string spec = kSpec;
        const std::string from = R"("sensitive": {"name": "sens", "loader": "idx", "path": "sens-images.idx",
                "options": {"labels": "sens-labels.idx", "classes": "a,b,c,d"}, "user_level": false},)";
        spec.replace(spec.find(from), from.size(),
                     R"("sensitive": {"name": "sens", "loader": "csv-images", "path": "patients/manifest.csv",
                "options": {"user_column": "Patient", "size": "8", "channels": "1", "labels": "ab,ac"}, "user_level": true},)");
        const std::string tasks = R"(,
    "sensitive": [{"name": "ab", "classes": ["a", "b"]}, {"name": "ac", "classes": ["a", "c"]}])";
        spec.replace(spec.find(tasks), tasks.size(), "");
        spec.replace(spec.find(R"("batch": 1000)"), std::string(R"("batch": 1000)").size(), R"("batch": 20)");
        std::ofstream(d + "/patients.json") << spec;
        auto created = project::createProjectFromSpecFile(d + "/patients.json", d + "/patients.dpmix", summarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        project::ProjectFile project = std::move(created).value();
        AuditStageOptions o;
        o.task = "ab";
        o.canary = audit::CanaryKind::MaxClip;
        o.canaryExamples = 3;
        o.runs = 60;
        o.seed = 2;
        o.proxy = quickProxy();
        auto report = runAuditStage(project, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QVERIFY(report->result.unit == privacy::PrivacyUnit::User);
        QCOMPARE(report->result.canaryExamples, 3LL);
        QVERIFY(report->result.epsilonLB <= 1.0);
        const auto run = project.run(report->runId).value();
        QVERIFY2(run.configJson.find("\"privacy_unit\":\"user\"") != std::string::npos, run.configJson.c_str());
        o.canary = audit::CanaryKind::Natural;
        o.canaryExamples = 1;
        const auto before = project.runs().value().size();
        auto natural = runAuditStage(project, o);
        QVERIFY(!natural.ok());
        QVERIFY2(natural.error().message.find("must be a user") != std::string::npos, natural.error().message.c_str());
        QCOMPARE(project.runs().value().size(), before);
    }

    void theAuditCalibratesWithTheRunsAccountant() {
        // The claimed ε is certified by the accountant the study uses (the spec names none: a new
        // project's PRV), so the audited mechanism has PRV's smaller σ; asked for RDP, RDP's.
        auto opened = project::ProjectFile::open(projectFile_);
        QVERIFY(opened.ok());
        auto project = std::move(opened).value();
        AuditStageOptions o;
        o.task = "ac";
        o.runs = 6;
        o.seed = 5;
        o.proxy = quickProxy();
        auto prv = runAuditStage(project, o);
        QVERIFY2(prv.ok(), prv.ok() ? "" : prv.error().message.c_str());
        o.accountant = privacy::Accountant::Rdp;
        auto rdp = runAuditStage(project, o);
        QVERIFY2(rdp.ok(), rdp.ok() ? "" : rdp.error().message.c_str());
        QVERIFY(prv->result.sigma < rdp->result.sigma);
        const auto details = [&](long long runId) {
            return nlohmann::json::parse(project.audits(runId).value().front().detailsJson);
        };
        QCOMPARE(details(prv->runId)["accountant"].get<std::string>(), std::string("prv"));
        QCOMPARE(details(rdp->runId)["accountant"].get<std::string>(), std::string("rdp"));
        // Each σ is what its accountant calibrates for the audited mechanism (q = 1: B > n_A).
        QCOMPARE(rdp->result.sigma, privacy::calibrateGaussianSigma(1.0, 1e-5, 1.0, 20)->sigma);
        QCOMPARE(prv->result.sigma, privacy::calibrateGaussianSigmaPrv(1.0, 1e-5, 1.0, 20)->sigma);
    }

    void badOptionsNameTheFlagAndStoreNothing() {
        auto opened = project::ProjectFile::open(projectFile_);
        QVERIFY(opened.ok());
        auto projectFile = std::move(opened).value();
        auto* project = &projectFile;
        const auto before = project->runs()->size();
        AuditStageOptions o;
        o.task = "no such task";
        o.runs = 10;
        auto r = runAuditStage(*project, o);
        QVERIFY(!r.ok());
        // Engine messages name the option neutrally; each front end adds its wording (the CLI's "--").
        QCOMPARE(r.error().field, std::string("task"));
        QVERIFY2(r.error().message.rfind("task: unknown task", 0) == 0, r.error().message.c_str());
        QVERIFY(r.error().message.find("'ab'") != std::string::npos);
        o.task = "ab";
        o.runs = 1;
        r = runAuditStage(*project, o);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().field, std::string("runs"));
        QVERIFY2(r.error().message.rfind("runs = 1 ", 0) == 0, r.error().message.c_str());
        o.runs = 10;
        o.epsilon = -1.0;
        r = runAuditStage(*project, o);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().field, std::string("epsilon"));
        QVERIFY2(r.error().message.rfind("epsilon = ", 0) == 0, r.error().message.c_str());
        QCOMPARE(project->runs()->size(), before);
    }

    // p(c | x) ∝ P(component of c | x): hand case with a component that is not a class.
    void classProbabilitiesRenormaliseTheSingleClassComponents() {
        Eigen::MatrixXd comp(2, 3);
        comp << 0.2, 0.9, 0.6,  // components: class a, union, class b
            0.0, 0.5, 0.0;
        const auto p = classProbabilitiesFromComponents(comp, {0, 2});
        QCOMPARE(p.cols(), Eigen::Index(2));
        DPMIX_COMPARE_NEAR(p(0, 0), 0.25, 1e-12);
        DPMIX_COMPARE_NEAR(p(0, 1), 0.75, 1e-12);
        DPMIX_COMPARE_NEAR(p(1, 0), 0.5, 1e-12);  // nothing to renormalise: uniform
    }

    void kScalingNeedsASingleClassTaskPerClass() {
        auto opened = project::ProjectFile::open(projectFile_);
        QVERIFY(opened.ok());
        auto projectFile = std::move(opened).value();
        auto* project = &projectFile;
        auto comps = singleClassComponents(project->spec(), {"a", "b", "cd"}, {"a", "b", "c", "d"});
        QVERIFY(!comps.ok());
        QVERIFY2(comps.error().message.find("'c'") != std::string::npos, comps.error().message.c_str());
        auto ok = singleClassComponents(project->spec(), {"a", "b", "cd"}, {"b", "a"});
        QVERIFY(ok.ok());
        QCOMPARE(*ok, (std::vector<std::size_t>{1, 0}));
        KScalingStageOptions o;
        o.ks = {2};
        QVERIFY(checkKScalingStageOptions(o).has_value());
        o.ks = {2, 4};
        o.seeds = 0;
        QCOMPARE(checkKScalingStageOptions(o)->field, std::string("seeds"));
        QVERIFY(checkKScalingStageOptions(o)->message.rfind("seeds = 0", 0) == 0);
    }

    // Weight recovery stored per (task, ε); ε = inf is λ* itself (cos 1, L1 0 by definition).
    void epsilonSweepStoresOneRunPerTaskAndEpsilon() {
        auto opened = project::ProjectFile::open(projectFile_);
        QVERIFY(opened.ok());
        auto projectFile = std::move(opened).value();
        auto* project = &projectFile;
        SweepStageOptions o;
        o.values = {1.0, std::numeric_limits<double>::infinity()};
        o.seeds = 2;
        o.proxy = quickProxy();
        auto r = runEpsilonSweepExperiment(*project, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r->runIds.size(), std::size_t(2));
        for (std::size_t t = 0; t < 2; ++t) {
            QCOMPARE(r->runIds[t].size(), std::size_t(2));
            auto inf = project->run(r->runIds[t][1]);
            QVERIFY(inf.ok());
            QCOMPARE(inf->method, std::string("epsilon-sweep"));
            QVERIFY(!inf->epsilon.has_value());
            auto metrics = project->metrics(r->runIds[t][1]);
            QVERIFY(metrics.ok());
            for (const auto& m : *metrics)
                if (m.name == "cosine-to-lambda-star") QVERIFY(std::abs(m.value - 1.0) < 1e-12);
            auto ledgers = project->ledgers(r->runIds[t][0]);
            QVERIFY(ledgers.ok() && ledgers->size() == 1);
            QVERIFY(ledgers->front().ledgerJson.find("not a release") != std::string::npos);
        }
    }
};

QTEST_APPLESS_MAIN(TestAuditStage)
#include "tst_audit_stage.moc"
