// AdaMix-R as a study's fine-tuning mechanism (docs/ADAMIX.md, "As a study's fine-tuning
// mechanism") on the tiny generated study: a study run's ledger entry, config and models; the
// shots held out of pretraining (the rows pretraining actually used) and drawn among the proxy's
// held-out images; determinism for a seed; the ε from the accountant for the (σ, q, T) used; and
// the bad inputs that stop a run before anything is written.
#include "engine/adamix/params.h"
#include "engine/pipeline/adamix_finetune.h"
#include "engine/pipeline/downstream_stage.h"
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/proxy_stage.h"
#include "engine/pipeline/study_runner.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_opener.h"
#include "tiny_image_study.h"

#include "tests/support/unit_test.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

using namespace dpmix;
using namespace dpmix::pipeline;
namespace fs = std::filesystem;

namespace {

// The tiny study with AdaMix-R fine-tuning: 2 shots per class from "pub", T = 6.
std::string adamixSpec(const std::string& finetune = R"({"mechanism": "adamix-r", "public_shots": 2,
             "shots_source": "pub", "steps": 6, "lr": 1.0, "rank": 3})") {
    return R"({
  "name": "tiny-adamix",
)" + testing::tinyStudyData() +
           R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3, "reproducible": true, "accountant": "rdp"},
  "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 5},
             "pretrain": {"batch": 32, "lr": 0.1, "steps": 2},
             "finetune": )" +
           finetune + R"(},
  "seeds": [0]
})";
}

[[noreturn]] void fatal(const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::abort();
}

}  // namespace

class TestAdamixFinetune : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    Result<project::ProjectFile> create(const std::string& name, const std::string& spec) {
        const std::string d = dir_.path();
        std::ofstream(d + "/" + name + ".json") << spec;
        return project::createProjectFromSpecFile(d + "/" + name + ".json", d + "/" + name + ".dpmix",
                                                  testing::dataLayerSummarizer());
    }

    project::ProjectFile project(const std::string& name, const std::string& spec) {
        auto created = create(name, spec);
        if (!created) fatal(created.error().message);
        return std::move(created).value();
    }

    ImageStudy loadStudy(project::ProjectFile& p) {
        auto study = loadImageStudy(p.sources().value(), p.spec(), 0);
        if (!study) fatal(study.error().message);
        return std::move(study).value();
    }

    // A downstream request of the project's spec on split B of run seed `seed`.
    DownstreamRequest request(const ImageStudy& study, const project::ProjectSpec& spec, std::uint64_t seed) {
        auto split = splitForRun(study, 0.3, seed);
        if (!split) fatal(split.error().message);
        DownstreamRequest r;
        r.task = 0;
        r.lambda = Eigen::VectorXd::Constant(3, 1.0 / 3.0);
        r.finetuneIndices = split->b;
        r.epsilon = 2.0;
        r.delta = 1e-5;
        r.seed = seed;
        r.finetuneRandomness = privacy::RandomnessSource::seeded(seed, "finetune/test");
        r.accountant = privacy::Accountant::Rdp;
        r.pretrain = spec.pretrain;
        r.finetune = spec.finetune;
        return r;
    }

    static StudyRunOptions quick() {
        StudyRunOptions o;
        o.stages = {"proxies", "mixture", "downstream"};
        o.methods = {"dp-mixmin", "random-init"};
        o.tasks = {"ab"};
        o.proxy = testing::quickProxy();
        o.randomSearchCandidates = 5;
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path();
        testing::writeStudyImages(d, "pub", 200, 1);
        testing::writeStudyImages(d, "sens", 600, 2);
        testing::writeStudyImages(d, "letters", 200, 3);  // a public source with other class names
    }

    void aStudyRunRecordsAdamixInItsLedger() {
        auto p = project("run", adamixSpec());
        auto report = runStudy(p, quick());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->downstream.size(), std::size_t(2));
        for (const auto& d : report->downstream) {
            const auto run = p.run(d.runId).value();
            QVERIFY(run.status == project::RunStatus::Done);
            // The planned ledger, stored before any work on the data, then the one the run kept.
            const auto records = p.ledgers(d.runId).value();
            QCOMPARE(records.size(), std::size_t(2));
            const auto ledger = privacy::ledgerFromJson(records.back().ledgerJson).value();
            const privacy::LedgerEntry& e = ledger.entries().back();
            // The AdaMix-R entry: the Gaussian of (q, σ, T) on split B, unit example.
            QCOMPARE(e.stage, std::string("adamix"));
            QVERIFY(e.mechanism == privacy::MechanismKind::SubsampledGaussian);
            QVERIFY(e.unit == privacy::PrivacyUnit::Example);
            QCOMPARE(e.split, d.method == "dp-mixmin" ? std::string("B") : std::string("train"));
            QCOMPARE(e.steps, 6LL);
            QCOMPARE(e.q, 1.0);
            QVERIFY(e.sigma > 0.0);
            QVERIFY(e.accounting == privacy::Accountant::Rdp);
            // ε from the accountant for the (σ, q, T) actually used, and within the target.
            const double recomputed =
                privacy::certifiedGaussianEpsilon(privacy::Accountant::Rdp, {{e.q, e.sigma, e.steps}}, e.delta);
            QCOMPARE(e.epsilon, recomputed);
            QVERIFY(e.epsilon <= 2.0 * (1.0 + 1e-9));
            QVERIFY(e.epsilon > 1.9);  // calibrated to the target, not far below it
            QVERIFY(ledger.verify().ok);
            QVERIFY(ledger.total().epsilon <= 2.0 * (1.0 + 1e-9));  // parallel: λ on A, AdaMix-R on B
            for (const char* words :
                 {"mechanism AdaMix-R", "T = 6 steps", "q = 1", "rank r = 3", "clip quantile tau = 0.5",
                  "2 labelled images per class (4 in all) of public source 'pub'", "public by the user's declaration"})
                QVERIFY2(e.assumptions.find(words) != std::string::npos,
                         (std::string(words) + " not in: " + e.assumptions).c_str());
            // The config records the parameters; the metrics are DP-SGD's.
            const auto config = nlohmann::json::parse(run.configJson);
            QCOMPARE(config["finetune_mechanism"].get<std::string>(), std::string("adamix-r"));
            QCOMPARE(config["adamix"]["public_shots"].get<long long>(), 2LL);
            QCOMPARE(config["adamix"]["shots_source"].get<std::string>(), std::string("pub"));
            QCOMPARE(config["adamix"]["rank"].get<long long>(), 3LL);
            QCOMPARE(config["adamix"]["steps"].get<long long>(), 6LL);
            QCOMPARE(config["adamix"]["shots_seed"].get<std::uint64_t>(), shotSeed(0, "ab"));
            QCOMPARE(config["finetune_steps"].get<long long>(), 6LL);
            std::set<std::string> metrics;
            for (const auto& m : p.metrics(d.runId).value()) metrics.insert(m.name);
            QVERIFY(metrics.count("test-auc") && metrics.count("finetune-noise"));
            QVERIFY(std::isfinite(d.testAuc) && d.testAuc >= 0.0 && d.testAuc <= 1.0);
            // The fine-tuned model: the frozen extractor and the head.
            std::set<std::string> models;
            for (const auto& m : p.models(d.runId).value()) models.insert(m.name);
            QVERIFY(models.count("frozen-extractor") && models.count("adamix-head"));
        }
    }

    void shotsAreHeldOutOfPretrainingAndOfTheProxy() {
        auto p = project("heldout", adamixSpec());
        const ImageStudy study = loadStudy(p);
        QVERIFY(study.shotPool.has_value());
        privacy::Ledger ledger;
        DownstreamRequest req = request(study, p.spec(), 3);
        auto out = runDownstream(study, req, ledger);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
        // 2 shots per class, each of the right class for task "ab" (classes a, b = ids 0, 1).
        QCOMPARE(out->shotRows.size(), std::size_t(4));
        const auto& pub = study.publicImages;
        std::vector<int> labels;
        for (auto row : out->shotRows) {
            const std::size_t cls = row % 4;  // writeStudyImages: image i is of class i mod 4
            labels.push_back(cls <= 1 ? 1 : 0);
        }
        QCOMPARE(std::count(labels.begin(), labels.end(), 1), 2L);
        QCOMPARE(std::count(labels.begin(), labels.end(), 0), 2L);
        // Pretraining used every public image except the shots: the indices it actually used.
        QCOMPARE(out->pretrainRows.size(), pub.size() - 4);
        std::set<std::size_t> used(out->pretrainRows.begin(), out->pretrainRows.end());
        for (auto row : out->shotRows) QVERIFY(!used.count(row));
        for (std::size_t j = 0; j < pub.size(); ++j)
            QVERIFY(used.count(j) || std::find(out->shotRows.begin(), out->shotRows.end(), j) != out->shotRows.end());
        // The shots are among the images the proxy (trained with the study seed) never trains on.
        const auto heldOut = proxyHeldOutRows(pub.size(), 0);
        for (auto row : out->shotRows) QVERIFY(std::binary_search(heldOut.begin(), heldOut.end(), row));
        // A pretraining cache never serves a model pretrained with the shots to a run without them.
        QVERIFY(PretrainCache::key(*req.lambda, 3, req.pretrain, out->shotRows) !=
                PretrainCache::key(*req.lambda, 3, req.pretrain));
        // The head: 2 classes × (p + 1).
        QCOMPARE(static_cast<long long>(out->head.size()), 2 * (out->featureDim + 1));
        QCOMPARE(out->adamixRank, 3);
        QCOMPARE(ledger.entries().size(), std::size_t(1));
        QCOMPARE(out->noise, ledger.entries().front().sigma);
    }

    void aSeedRepeatsItsRun() {
        auto p = project("determinism", adamixSpec());
        const ImageStudy study = loadStudy(p);
        privacy::Ledger l1, l2, l3;
        auto first = runDownstream(study, request(study, p.spec(), 5), l1);
        auto second = runDownstream(study, request(study, p.spec(), 5), l2);
        QVERIFY(first.ok() && second.ok());
        QCOMPARE(first->shotRows, second->shotRows);
        QCOMPARE(first->head, second->head);
        QCOMPARE(first->testAuc, second->testAuc);
        QCOMPARE(l1.entries().front().epsilon, l2.entries().front().epsilon);
        QCOMPARE(first->shotSeed, shotSeed(5, "ab"));
        // Another run seed draws other shots (its seed differs; with 2 of ~10 per class, the rows
        // differ for these seeds).
        auto other = runDownstream(study, request(study, p.spec(), 6), l3);
        QVERIFY(other.ok());
        QVERIFY(other->shotSeed != first->shotSeed);
        QVERIFY(other->shotRows != first->shotRows);
    }

    void theAccountantCertifiesTheSigmaUsed() {
        auto p = project("accounting", adamixSpec(R"({"mechanism": "adamix-r", "public_shots": 2,
             "shots_source": "pub", "steps": 6, "q": 0.5})"));
        const ImageStudy study = loadStudy(p);
        DownstreamRequest req = request(study, p.spec(), 1);
        req.accountant = privacy::Accountant::Prv;
        auto plan = planFinetune(study, req);
        QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
        QVERIFY(plan->adamix.has_value());
        const auto& params = *plan->adamix;
        QCOMPARE(params.q, 0.5);
        QCOMPARE(params.steps, 6LL);
        QCOMPARE(params.rank, 4);  // unset: min(m, 64) with m = 2 classes × 2 shots
        QCOMPARE(plan->entry.epsilon,
                 privacy::certifiedGaussianEpsilon(privacy::Accountant::Prv, {{0.5, params.sigma, 6}}, 1e-5));
        QVERIFY(plan->entry.epsilon <= 2.0 * (1.0 + 1e-9));
        // The same (σ, q, T) run: the ledger's entry is the plan's.
        privacy::Ledger ledger;
        auto out = runDownstream(study, req, ledger);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
        QCOMPARE(ledger.entries().front().sigma, params.sigma);
        QCOMPARE(ledger.entries().front().epsilon, plan->entry.epsilon);
        // Sequential composition: σ calibrated after the earlier entry, the total within ε.
        req.spentBefore = {privacy::gaussianEntry("mixture", "B", privacy::PrivacyUnit::Example, 0.1, 2.0, 50, 1e-5,
                                                  1.0, privacy::Accountant::Prv)};
        auto after = planFinetune(study, req);
        QVERIFY2(after.ok(), after.ok() ? "" : after.error().message.c_str());
        QVERIFY(after->adamix->sigma > params.sigma);
        privacy::Ledger both(privacy::Composition::Sequential);
        both.record(req.spentBefore.front());
        both.record(after->entry);
        QVERIFY(both.total().epsilon <= 2.0 * (1.0 + 1e-6));
    }

    void shotsOverWhatTheSourceHasStopBeforeAnythingIsWritten() {
        // 200 public images, 20 held out by the proxy: about 5 of each class, so 10 positives
        // (classes a, b) and 10 negatives per task — 50 per class is more than there is.
        auto p =
            project("too-many", adamixSpec(R"({"mechanism": "adamix-r", "public_shots": 50, "shots_source": "pub"})"));
        auto report = runStudy(p, quick());
        QVERIFY(!report.ok());
        QVERIFY2(report.error().message.rfind("stages.finetune.public_shots = 50 exceeds the ", 0) == 0,
                 report.error().message.c_str());
        QVERIFY2(report.error().message.find("available in public source \"pub\"") != std::string::npos,
                 report.error().message.c_str());
        QCOMPARE(report.error().field, std::string("stages.finetune.public_shots"));
        QVERIFY(p.runs().value().empty());  // nothing written: no proxy, no run, no ledger
    }

    void aSourceWithoutTheSensitiveLabelsIsRefused() {
        // "letters" has classes w, x, y, z: the sensitive tasks' a, b, c are not among them.
        std::string spec = adamixSpec(R"({"mechanism": "adamix-r", "public_shots": 2, "shots_source": "letters"})");
        const std::string sources = R"("public_sources": [)";
        spec.replace(spec.find(sources), sources.size(),
                     sources + R"({"name": "letters", "loader": "idx", "path": "letters-images.idx",
                      "options": {"labels": "letters-labels.idx", "classes": "w,x,y,z"}}, )");
        spec.replace(spec.find(R"({"name": "a", "classes": ["a"]})"), 31,
                     R"({"name": "a", "classes": ["a"], "source": "pub"})");
        spec.replace(spec.find(R"({"name": "b", "classes": ["b"]})"), 31,
                     R"({"name": "b", "classes": ["b"], "source": "pub"})");
        spec.replace(spec.find(R"({"name": "cd", "classes": ["c", "d"]})"), 37,
                     R"({"name": "cd", "classes": ["c", "d"], "source": "pub"})");
        auto created = create("letters", spec);
        QVERIFY(!created.ok());
        QVERIFY2(
            created.error().message.rfind("stages.finetune.shots_source: public source \"letters\" lacks the sensitive "
                                          "labels \"a\", \"b\", \"c\"",
                                          0) == 0,
            created.error().message.c_str());
        QVERIFY(!fs::exists(fs::path(dir_.path()) / "letters.dpmix"));  // nothing written
    }

    void userLevelIsRefused() {
        project::FinetuneStage f;
        f.mechanism = methods::FinetuneMechanism::AdamixR;
        auto refusal = finetuneUnitRefusal(true, f);
        QVERIFY(refusal.has_value());
        QVERIFY(refusal->message.find("AdaMix-R's accounting is example-level") != std::string::npos);
        QVERIFY(!finetuneUnitRefusal(false, f));
    }

    void theSpecDefaultsAreTheCoresDefaults() {
        // stages.finetune.steps and lr default, for adamix-r, to AdamixParamsBuilder::defaults().
        auto p = adamix::AdamixParamsBuilder::defaults().epsilon(1.0).build(10, 4);
        QVERIFY(p.ok());
        QCOMPARE(p->steps, project::kAdamixDefaultSteps);
        QCOMPARE(p->stepSize, project::kAdamixDefaultEta);
        QCOMPARE(project::FinetuneStage{}.clipQuantile, p->clipQuantile);
    }
};

QTEST_APPLESS_MAIN(TestAdamixFinetune)
#include "tst_adamix_finetune.moc"
