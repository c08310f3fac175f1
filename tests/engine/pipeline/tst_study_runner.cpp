// pipeline::runStudy, the image-study orchestrator, on a tiny generated project (no downloaded
// data): the runs each method stores, their statuses, ledgers and λ rows, proxy reuse, the
// randomness mode, sequential composition, and a cancellation that leaves no run "running".
#include "engine/methods/method_plan.h"
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/study_runner.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/prv_accountant.h"
#include "engine/project/project_budget.h"
#include "engine/project/project_opener.h"
#include "tiny_image_study.h"

#include "tests/support/own_budget_store.h"
#include "tests/support/unit_test.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

using namespace dpmix;
using namespace dpmix::pipeline;

namespace {

std::string specText(const std::string& composition) {
    return R"({
  "name": "tiny-study",
  "description": "4 classes; 3 public tasks; 2 sensitive tasks",
)" + testing::tinyStudyData() +
           R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3, "composition": ")" + composition + R"("},
  "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 5},
             "pretrain": {"batch": 32, "lr": 0.1, "steps": 2},
             "finetune": {"batch": 64, "lr": 0.05, "steps": 2, "clip": 1.0}},
  "seeds": [0]
})";
}

[[noreturn]] void fatal(const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::abort();
}

// The run's ledger: the last one recorded. A mixture run records one; a downstream run two — the
// ledger with its planned fine-tuning entry before training (so a kill leaves it on record), then
// the one training kept (its randomness and key stream filled in). Empty for any other count.
privacy::Ledger onlyLedger(const project::ProjectFile& p, long long runId) {
    const auto records = p.ledgers(runId).value();
    const auto run = p.run(runId).value();
    const bool downstream = run.configJson.find("\"finetune_") != std::string::npos;
    if (records.size() != (downstream ? 2u : 1u)) return privacy::Ledger();
    return privacy::ledgerFromJson(records.back().ledgerJson).value();
}

std::map<std::string, int> countByMethod(const std::vector<project::RunRecord>& runs) {
    std::map<std::string, int> n;
    for (const auto& r : runs) ++n[r.method];
    return n;
}

}  // namespace

class TestStudyRunner : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    project::ProjectFile freshProject(const std::string& name, const std::string& composition) {
        const std::string d = dir_.path();
        std::ofstream(d + "/" + name + ".json") << specText(composition);
        auto created = project::createProjectFromSpecFile(d + "/" + name + ".json", d + "/" + name + ".dpmix",
                                                          testing::dataLayerSummarizer());
        if (!created) fatal(created.error().message);
        return std::move(created).value();
    }

    // The user-level study: sensitive PNGs with a Patient column, 3 images per patient.
    project::ProjectFile userLevelProject(const std::string& name, const std::string& mechanism) {
        const std::string d = dir_.path();
        std::string spec = specText("parallel");
        auto replace = [&](const std::string& from, const std::string& to) {
            const auto at = spec.find(from);
            if (at == std::string::npos) fatal("fixture: '" + from + "' not in the spec");
            spec.replace(at, from.size(), to);
        };
        replace(R"("sensitive": {"name": "sens", "loader": "idx", "path": "sens-images.idx",
                "options": {"labels": "sens-labels.idx", "classes": "a,b,c,d"}, "user_level": false})",
                R"("sensitive": {"name": "sens", "loader": "csv-images", "path": "patients/manifest.csv",
                "options": {"user_column": "Patient", "size": "8", "channels": "1", "labels": "ab,ac"}, "user_level": true})");
        replace(R"(,
    "sensitive": [{"name": "ab", "classes": ["a", "b"]}, {"name": "ac", "classes": ["a", "c"]}])",
                "");
        replace(R"("mixture": {"clip": 13, "batch": 1000,)", R"("mixture": {"clip": 13, "batch": 20,)");
        replace(R"("clip": 1.0})", R"("clip": 1.0, "mechanism": ")" + mechanism + R"("})");
        std::ofstream(d + "/" + name + ".json") << spec;
        auto created = project::createProjectFromSpecFile(d + "/" + name + ".json", d + "/" + name + ".dpmix",
                                                          testing::dataLayerSummarizer());
        if (!created) fatal(created.error().message);
        return std::move(created).value();
    }

    static StudyRunOptions quick(std::vector<std::string> stages) {
        StudyRunOptions o;
        o.stages = std::move(stages);
        o.proxy = testing::quickProxy();
        o.randomSearchCandidates = 5;
        return o;
    }

private Q_SLOTS:
    void init() { dpmix::test_support::useOwnBudgetStore(dir_); }
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path();
        testing::writeStudyImages(d, "pub", 200, 1);
        testing::writeStudyImages(d, "sens", 600, 2);
        testing::writeUserLevelImages(d, "patients", 600, 3, 3);
    }

    void mixtureStageStoresEveryMethodAndReusesTheProxy() {
        auto p = freshProject("mixture", "parallel");
        auto report = runStudy(p, quick({"proxies", "mixture"}));
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->mixtures.size(), std::size_t(2));  // one per task, one seed
        const auto runs = p.runs().value();
        auto n = countByMethod(runs);
        QCOMPARE(n["proxy"], 1);
        // Every method the table stores as a mixture-stage run (λ*, Uniform, Random Search, DP-MixMin).
        int stored = 0;
        for (const auto& t : methods::allMethods())
            if (t.mixtureStageRun) {
                QCOMPARE(n[std::string(t.name)], 2);
                ++stored;
            }
        QVERIFY(stored >= 4);  // at least the paper's four
        for (const auto& r : runs) {
            QVERIFY2(r.status == project::RunStatus::Done, r.method.c_str());
            if (r.method == "proxy") continue;
            QVERIFY2(!p.lambdas(r.id).value().empty(), r.method.c_str());
            const auto ledger = onlyLedger(p, r.id);
            if (r.method == "dp-mixmin") {
                QCOMPARE(ledger.entries().size(), std::size_t(1));
                const auto& e = ledger.entries().front();
                QVERIFY(e.mechanism == privacy::MechanismKind::SubsampledGaussian);
                QCOMPARE(e.split, std::string("A"));
                QVERIFY(e.randomness == privacy::RandomnessMode::Secret);  // the default: a release
                QVERIFY(e.epsilon <= 2.0);
                QVERIFY(!ledger.total().seeded);
            } else if (r.method == "uniform") {
                QVERIFY(ledger.entries().empty());  // nothing touched the sensitive data
            } else {
                QVERIFY(std::isinf(ledger.total().epsilon));  // λ* and random search are not private
            }
        }
        // A second call trains no new proxy, and the baselines it computes again — the same split A,
        // the same proxy, so the same λ — are not recorded a second time (every Run used to add λ*, uniform and random
        // search rows; docs/WORKBENCH.md, "The engine behind the window"); DP-MixMin's new releases are.
        auto again = runStudy(p, quick({"proxies", "mixture"}));
        QVERIFY(again.ok());
        n = countByMethod(p.runs().value());
        QCOMPARE(n["proxy"], 1);
        QCOMPARE(n["dp-mixmin"], 4);
        for (const auto& t : methods::allMethods())
            if (t.mixtureStageRun && t.choice != methods::Choice::Private) QCOMPARE(n[std::string(t.name)], 2);
    }

    void downstreamRunsEveryMethodWithItsLedger() {
        auto p = freshProject("downstream", "parallel");
        auto o = quick({"proxies", "mixture", "downstream"});
        o.tasks = {"ab"};
        o.reproducible = true;
        auto report = runStudy(p, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->downstream.size(), methods::allMethods().size());  // one run per method
        for (const auto& d : report->downstream) {
            const auto run = p.run(d.runId).value();
            QVERIFY2(run.status == project::RunStatus::Done, d.method.c_str());
            const auto ledger = onlyLedger(p, d.runId);
            const auto total = ledger.total();
            QVERIFY2(total.seeded, d.method.c_str());  // --reproducible reaches every mechanism
            QVERIFY(run.configJson.find("\"randomness\":\"seeded\"") != std::string::npos);
            if (d.method == "dp-mixmin") {
                QCOMPARE(ledger.entries().size(), std::size_t(2));  // mixture on A, fine-tuning on B
                QCOMPARE(ledger.entries()[0].split, std::string("A"));
                QCOMPARE(ledger.entries()[1].split, std::string("B"));
                QVERIFY(total.epsilon <= 2.0 + 1e-9);  // parallel: max over disjoint splits
            } else if (d.method == "uniform" || d.method == "random-init") {
                QCOMPARE(ledger.entries().size(), std::size_t(1));
                QCOMPARE(ledger.entries()[0].split, std::string("train"));
            } else {
                QVERIFY(std::isinf(total.epsilon));  // random search, λ*: non-private choices
            }
            QVERIFY(!p.models(d.runId).value().empty());
        }
    }

    // A downstream run (Compare with baselines) reuses the DP-MixMin λ the project already released for the same
    // (seed, task, ε) and settings (docs/PRIVACY.md, "Reusing a released mixture"): no second mechanism on split A,
    // the stored entry carried in its ledger marked with the run that spent it, the budget counting
    // it once; --relearn-mixture learns and spends again. Fails on the old code, which re-learned
    // and re-spent (three mixture releases in the budget instead of two).
    void compareReusesTheReleasedMixture_data() {
        QTest::addColumn<QString>("composition");
        QTest::newRow("parallel") << "parallel";
        QTest::newRow("sequential") << "sequential";
    }
    void compareReusesTheReleasedMixture() {
        QFETCH(QString, composition);
        auto p = freshProject("reuse-" + composition.toStdString(), composition.toStdString());
        auto mixtureOnly = quick({"proxies", "mixture"});
        mixtureOnly.tasks = {"ab"};
        mixtureOnly.methods = {"dpmixmin"};
        QVERIFY(runStudy(p, mixtureOnly).ok());
        long long released = 0;
        for (const auto& r : p.runs().value())
            if (r.method == "dp-mixmin") released = r.id;
        QVERIFY(released > 0);
        const auto releasedEntry = onlyLedger(p, released).entries().at(0);
        std::vector<double> releasedLambda;
        for (const auto& l : p.lambdas(released).value())
            if (l.kind == std::string(methods::traitsOf(methods::Method::DpMixMin).lambdaKind))
                releasedLambda = l.values;
        auto budgetReleases = [&] {
            auto budget = project::projectBudget(p);
            if (!budget) fatal(budget.error().message);
            return budget->releases.size();
        };
        QCOMPARE(budgetReleases(), std::size_t(1));

        auto compare = quick({"proxies", "mixture", "downstream"});
        compare.tasks = {"ab"};
        compare.methods = {"dpmixmin", "random-init"};
        // The plan (the workbench's spend preview) has the two fine-tunings and no mixture.
        const auto planned = planStudyReleases(p, compare).value();
        QCOMPARE(planned.size(), std::size_t(2));
        for (const auto& r : planned) QVERIFY2(r.entry.split != "A", r.label.c_str());
        std::vector<std::string> said;
        auto report = runStudy(p, compare, {}, {}, [&](const std::string& line) { said.push_back(line); });
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        long long dpRun = 0;
        for (const auto& d : report->downstream)
            if (d.method == "dp-mixmin") dpRun = d.runId;
        const auto ledger = onlyLedger(p, dpRun);
        QCOMPARE(ledger.entries().size(), std::size_t(2));
        QCOMPARE(ledger.entries()[0].spentInRun, released);
        QVERIFY(privacy::sameRelease(ledger.entries()[0], releasedEntry));
        QCOMPARE(ledger.entries()[1].spentInRun, 0LL);
        bool lambdaSame = false;
        for (const auto& l : p.lambdas(dpRun).value())
            if (l.kind == std::string(methods::traitsOf(methods::Method::DpMixMin).lambdaKind))
                lambdaSame = l.values == releasedLambda;
        QVERIFY(lambdaSame);
        bool toldTheUser = false;
        for (const auto& line : said)
            toldTheUser |= line.find("reused from run " + std::to_string(released)) != std::string::npos;
        QVERIFY(toldTheUser);
        // The budget: the mixture once, plus two fine-tunings.
        QCOMPARE(budgetReleases(), std::size_t(3));
        // Split A was touched by one mechanism only: the release's.
        auto mechanismsOnA = [&] {
            int n = 0;
            for (const auto& r : p.runs().value()) {
                const auto records = p.ledgers(r.id).value();
                if (records.empty()) continue;
                const auto ledger = privacy::ledgerFromJson(records.back().ledgerJson).value();
                for (const auto& e : ledger.entries())
                    n += e.split == "A" && e.spentInRun == 0 && e.mechanism != privacy::MechanismKind::NonPrivate;
            }
            return n;
        };
        QCOMPARE(mechanismsOnA(), 1);

        // Asked to learn again: a new mechanism on split A, counted.
        compare.relearnMixture = true;
        QCOMPARE(planStudyReleases(p, compare).value().size(), std::size_t(3));
        auto again = runStudy(p, compare);
        QVERIFY(again.ok());
        for (const auto& d : again->downstream)
            if (d.method == "dp-mixmin") QCOMPARE(onlyLedger(p, d.runId).entries()[0].spentInRun, 0LL);
        QCOMPARE(budgetReleases(), std::size_t(3 + 3));
        QCOMPARE(mechanismsOnA(), 2);
    }

    // The run reports one share of the whole job (docs/MANUAL.md, "Running"), not each stage's own done/total:
    // never backwards across stages, and at its end the plan is used up (the plan counts what
    // the run does: one pretraining per cached model, the proxy, every mixture and method). Fails
    // on the old code, which reported no job share at all (-1 throughout).
    void theWholeRunReportsOneJobShare() {
        auto p = freshProject("job-share", "parallel");
        auto o = quick({"proxies", "mixture", "downstream"});
        o.methods = {"dpmixmin", "uniform", "random-init"};
        o.epsilons = {1.0, 2.0};
        std::vector<std::pair<std::string, double>> seen;
        auto report = runStudy(p, o, [&](const ProgressEvent& e) { seen.push_back({e.stage, e.jobFraction}); });
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        double last = 0.0;
        std::set<std::string> stages;
        for (const auto& [stage, share] : seen) {
            if (share < 0.0) continue;  // loading, before the plan is known
            QVERIFY2(share >= last, stage.c_str());
            last = share;
            stages.insert(stage);
        }
        QVERIFY(stages.count("mixture") && stages.count("pretrain") && stages.count("finetune"));
        // The last evaluation reports nothing, so the share ends just short of 1 — not far.
        QVERIFY2(last > 0.9 && last <= 1.0, std::to_string(last).c_str());
    }

    // A carried entry counts in the budget unless the run it names holds the same release: a
    // dangling or altered reference must not hide a spend.
    void aCarriedEntryCountsUnlessItsRunHoldsIt() {
        project::RunRecord spender;
        spender.id = 3;
        spender.method = "dp-mixmin";
        spender.configJson = R"({"rho":0.3})";
        project::RunRecord reuser = spender;
        reuser.id = 7;
        privacy::LedgerEntry mixture =
            privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.1, 1.2, 50, 1e-5, 1.0);
        privacy::Ledger spent;
        spent.record(mixture);
        privacy::Ledger carrying;
        privacy::LedgerEntry carried = mixture;
        carried.spentInRun = 3;
        carrying.record(carried);
        carrying.record(
            privacy::gaussianEntry("finetune", "B", privacy::PrivacyUnit::Example, 0.01, 1.0, 20, 1e-5, 1.0));
        auto record = [](long long run, const privacy::Ledger& l) {
            project::LedgerRecord r;
            r.runId = run;
            r.ledgerJson = privacy::ledgerToJson(l);
            return r;
        };
        const std::vector<project::RunLedgers> both{{spender, {record(3, spent)}}, {reuser, {record(7, carrying)}}};
        QCOMPARE(project::releasesOf(reuser, carrying, both).size(), std::size_t(1));  // the fine-tuning only
        const std::vector<project::RunLedgers> alone{{reuser, {record(7, carrying)}}};
        QCOMPARE(project::releasesOf(reuser, carrying, alone).size(), std::size_t(2));  // run 3 absent: counted here
        privacy::Ledger other;
        privacy::LedgerEntry different = mixture;
        different.sigma = 0.9;
        other.record(different);
        const std::vector<project::RunLedgers> altered{{spender, {record(3, other)}}, {reuser, {record(7, carrying)}}};
        QCOMPARE(project::releasesOf(reuser, carrying, altered).size(), std::size_t(2));  // not the same release
        // The field survives the ledger's JSON.
        QCOMPARE(privacy::ledgerFromJson(privacy::ledgerToJson(carrying)).value().entries()[0].spentInRun, 3LL);
        QVERIFY(
            !privacy::ledgerFromJson(R"({"entries":[{"mechanism":"non-private","epsilon":"inf","spent_in_run":0}]})")
                 .ok());
    }

    void sequentialCompositionMeetsTheTarget() {
        auto p = freshProject("sequential", "sequential");
        auto o = quick({"proxies", "mixture", "downstream"});
        o.tasks = {"ac"};
        o.methods = {"dp-mixmin", "uniform"};
        auto report = runStudy(p, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        for (const auto& d : report->downstream) {
            const auto ledger = onlyLedger(p, d.runId);
            const auto total = ledger.total();
            QVERIFY(total.composition == privacy::Composition::Sequential);
            const std::string epsilon = dpmix::test_support::str(dpmix::test_support::Exact{total.epsilon});
            QVERIFY2(total.epsilon <= 2.0 + 1e-9, epsilon.c_str());
            QVERIFY2(total.epsilon > 2.0 - 1e-3, epsilon.c_str());  // spent, not wasted
            QCOMPARE(d.ledgerEpsilon, total.epsilon);
            if (d.method == "dp-mixmin") QVERIFY(ledger.entries()[0].epsilon <= 1.0 + 1e-9);  // half for λ
        }
    }

    void sequentialMixtureOnlyRunsAreLabelledWithWhatTheySpend() {
        auto p = freshProject("sequential-mixture", "sequential");
        auto o = quick({"proxies", "mixture"});
        o.tasks = {"ab"};
        QVERIFY(runStudy(p, o).ok());
        int dp = 0;
        const auto runs = p.runs().value();  // a local: iterating into the temporary Result would dangle
        for (const auto& r : runs) {
            if (r.method != "dp-mixmin") continue;
            ++dp;
            const auto ledger = onlyLedger(p, r.id);
            QCOMPARE(*r.epsilon, 1.0);  // the spec's ε = 2, half of it for the mixture stage
            QVERIFY(ledger.total().epsilon <= *r.epsilon + 1e-9 && ledger.total().epsilon > *r.epsilon - 1e-3);
        }
        QCOMPARE(dp, 1);
    }

    void userLevelStudyProtectsPatientsInEveryMechanism() {
        // 600 images of 200 patients (3 each): every Gaussian entry counts patients — q is the
        // spec's batch over the patients of the split, σ is calibrated for that q.
        auto p = userLevelProject("patients", "dp-sgd");
        auto o = quick({"proxies", "mixture", "downstream"});
        o.tasks = {"ab"};
        o.reproducible = true;
        auto report = runStudy(p, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->downstream.size(), methods::allMethods().size());
        const auto sources = p.sources().value();
        auto study = loadImageStudy(sources, p.spec(), 0);
        QVERIFY(study.ok() && study->userLevel());
        auto split = splitForRun(*study, p.spec().privacy.rho, 0);
        QVERIFY(split.ok());
        auto patients = [&](const std::vector<std::size_t>& idx) {
            std::set<std::string> u;
            for (auto i : idx) u.insert(study->grouping.users[i]);
            return static_cast<double>(u.size());
        };
        std::vector<std::size_t> train = split->a;
        train.insert(train.end(), split->b.begin(), split->b.end());
        const double mA = patients(split->a), mB = patients(split->b), mTrain = patients(train);
        QVERIFY(mA > 20 && mB > 64 && mTrain <= 200);
        QCOMPARE(report->mixtures.front().outcome.users, static_cast<long long>(mA));
        int gaussian = 0;
        for (const auto& d : report->downstream) {
            const auto run = p.run(d.runId).value();
            QVERIFY2(run.configJson.find("\"privacy_unit\":\"user\"") != std::string::npos, run.configJson.c_str());
            const privacy::Ledger ledger = onlyLedger(p, d.runId);
            for (const auto& e : ledger.entries()) {
                if (e.mechanism != privacy::MechanismKind::SubsampledGaussian) continue;
                ++gaussian;
                QVERIFY2(e.unit == privacy::PrivacyUnit::User, (d.method + " " + e.stage).c_str());
                const double m = e.stage == "mixture" ? mA : (e.split == "B" ? mB : mTrain);
                const double batch = e.stage == "mixture" ? 20.0 : 64.0;
                QCOMPARE(e.q, batch / m);
                // The spec names no accountant: a new project's, PRV, reaches every mechanism.
                QVERIFY2(e.accounting == privacy::Accountant::Prv, (d.method + " " + e.stage).c_str());
                QCOMPARE(e.sigma, privacy::calibrateGaussianSigmaPrv(2.0, 1e-5, batch / m, e.steps)->sigma);
            }
        }
        // Each method's fine-tuning, and the λ of each method whose choice is a DP release (DP-MixMin).
        int expected = 0;
        for (const auto& t : methods::allMethods()) expected += t.choice == methods::Choice::Private ? 2 : 1;
        QCOMPARE(gaussian, expected);
        // Every entry of every stored ledger names the patient: the non-private λ* and Random
        // Search (ε = ∞) too, in their mixture-only runs and in the downstream runs they start.
        int nonPrivate = 0;
        for (const auto& run : p.runs().value())
            for (const auto& record : p.ledgers(run.id).value()) {
                const privacy::Ledger ledger = privacy::ledgerFromJson(record.ledgerJson).value();
                for (const auto& e : ledger.entries()) {
                    QVERIFY2(e.unit == privacy::PrivacyUnit::User, (run.method + " " + e.stage).c_str());
                    nonPrivate += e.mechanism == privacy::MechanismKind::NonPrivate;
                }
            }
        QVERIFY(nonPrivate >= 4);  // λ* and Random Search, each as a baseline and before fine-tuning
    }

    void userLevelDirichletIsRefusedBeforeAnythingIsStored() {
        auto p = userLevelProject("dirichlet-users", "dirichlet");
        auto report = runStudy(p, quick({"proxies", "mixture", "downstream"}));
        QVERIFY(!report.ok());
        QVERIFY2(report.error().message.find("cannot protect users") != std::string::npos,
                 report.error().message.c_str());
        QVERIFY(p.runs().value().empty());
        // Mixture learning alone has no Dirichlet step: it runs, at user level.
        auto mixture = runStudy(p, quick({"proxies", "mixture"}));
        QVERIFY2(mixture.ok(), mixture.ok() ? "" : mixture.error().message.c_str());
    }

    void aCancelledMixtureRunKeepsItsLedger_data() {
        QTest::addColumn<bool>("downstream");
        QTest::newRow("mixture only") << false;
        QTest::newRow("downstream study") << true;
    }

    void aCancelledMixtureRunKeepsItsLedger() {
        // Two ε: cancelled after the first DP-MixMin mechanism ran (in a mixture-only study its run
        // was stored with its ledger before it touched split A; in a downstream study its entry is
        // charged to a cancelled run) and before the second started.
        QFETCH(bool, downstream);
        auto p = freshProject(downstream ? "cancel-ledger-ds" : "cancel-ledger", "parallel");
        CancellationToken token;
        auto progress = [&](const ProgressEvent& e) {
            if (e.stage == "mixture") token.cancel();
        };
        auto o = downstream ? quick({"proxies", "mixture", "downstream"}) : quick({"proxies", "mixture"});
        o.tasks = {"ab"};
        o.epsilons = {2.0, 3.0};
        bool cancelled = false;
        try {
            (void)runStudy(p, o, progress, token);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        std::map<double, project::RunRecord> dp;
        const auto runs = p.runs().value();
        for (const auto& r : runs)
            if (r.method == "dp-mixmin") dp[*r.epsilon] = r;
        QCOMPARE(dp.size(), std::size_t(2));
        for (const auto& [eps, run] : dp) QVERIFY(run.status == project::RunStatus::Cancelled);
        const auto spent = onlyLedger(p, dp[2.0].id);
        QCOMPARE(spent.entries().size(), std::size_t(1));
        QVERIFY(spent.entries().front().mechanism == privacy::MechanismKind::SubsampledGaussian);
        QVERIFY(spent.total().epsilon > 1.9 && spent.total().epsilon <= 2.0);
        QVERIFY(p.lambdas(dp[2.0].id).value().empty());  // nothing released
        QVERIFY(p.ledgers(dp[3.0].id).value().empty());  // never started: nothing spent
        // The budget counts what was spent.
        QCOMPARE(project::projectBudget(p).value().total.releases, 1LL);
    }

    void aRunOverTheBudgetCapIsRefusedBeforeAnythingIsStored() {
        // Cap 3: one mixture-only run at ε = 2 (two tasks) fits; a second at ε = 2.5 would not.
        const std::string d = dir_.path();
        std::string spec = specText("parallel");
        spec.replace(spec.find(R"("composition": "parallel"})"), std::string(R"("composition": "parallel"})").size(),
                     R"("composition": "parallel", "budget": 3})");
        std::ofstream(d + "/capped2.json") << spec;
        auto created = project::createProjectFromSpecFile(d + "/capped2.json", d + "/capped2.dpmix",
                                                          testing::dataLayerSummarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        project::ProjectFile q = std::move(created).value();
        auto first = runStudy(q, quick({"proxies", "mixture"}));
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
        const auto before = q.runs().value().size();
        auto o = quick({"proxies", "mixture"});
        o.epsilons = {2.5};
        auto second = runStudy(q, o);
        QVERIFY(!second.ok());
        QVERIFY2(second.error().message.find("privacy budget cap 3") != std::string::npos,
                 second.error().message.c_str());
        QVERIFY(second.error().message.find("nothing was run") != std::string::npos);
        QCOMPARE(q.runs().value().size(), before);
    }

    void aFineTuningBatchLargerThanItsSplitFailsBeforeAnythingRuns() {
        // Found only after minutes of proxies and pretraining before: now the whole run is planned
        // first, and nothing (not even the proxy) is stored.
        const std::string d = dir_.path();
        std::string spec = specText("parallel");
        const std::string batch = R"("finetune": {"batch": 64,)";
        spec.replace(spec.find(batch), batch.size(), R"("finetune": {"batch": 100000,)");
        std::ofstream(d + "/bigbatch.json") << spec;
        auto q = project::createProjectFromSpecFile(d + "/bigbatch.json", d + "/bigbatch.dpmix",
                                                    testing::dataLayerSummarizer())
                     .value();
        auto r = runStudy(q, quick({"proxies", "mixture", "downstream"}));
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("stages.finetune.batch = 100000 exceeds") != std::string::npos,
                 r.error().message.c_str());
        QVERIFY(q.runs().value().empty());
    }

    void aCollapsedPretrainingIsLoggedAndStored() {
        // Pretraining at lr 2 diverges (docs/RESULTS.md, "The collapsed pretraining"): on the 200
        // public images every probability is exactly 0 or 1. The run still finishes, and says so in
        // its line, a stored metric and a warning in its log; at lr 0.1 nothing is said.
        auto p = freshProject("collapse", "parallel");
        auto o = quick({"proxies", "mixture", "downstream"});
        o.tasks = {"ab"};
        o.methods = {"uniform"};
        o.reproducible = true;
        std::vector<std::string> said;
        auto sink = [&](const std::string& line) { said.push_back(line); };
        for (double lr : {0.1, 2.0}) {
            o.pretrain = project::PretrainStage{32, lr, 4};
            said.clear();
            auto report = runStudy(p, o, {}, {}, sink);
            QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
            const long long id = report->downstream.at(0).runId;
            QVERIFY(p.run(id).value().status == project::RunStatus::Done);
            const auto metrics = p.metrics(id).value();
            const bool stored = std::any_of(metrics.begin(), metrics.end(), [](const auto& m) {
                return m.name == "pretraining-collapsed" && m.className == "ab" && m.value == 1.0;
            });
            const auto logs = p.logs(id).value();
            const bool logged = std::any_of(logs.begin(), logs.end(), [](const auto& l) {
                return l.level == "warning" && l.message ==
                                                   "pretraining collapsed on public images, saturated outputs: all 200 "
                                                   "probabilities exactly 0 or 1 in float; fine-tuning started from it";
            });
            const bool line = std::any_of(said.begin(), said.end(), [](const std::string& l) {
                return l.find("test AUC") != std::string::npos && l.find("pretraining collapsed") != std::string::npos;
            });
            QCOMPARE(stored, lr > 1.0);
            QCOMPARE(logged, lr > 1.0);
            QCOMPARE(line, lr > 1.0);
        }
        // At lr 1000 its outputs are NaN: the run stops before fine-tuning and says why (the old
        // code fine-tuned the NaN model and failed in evaluation: "AUC: score at index 0 is NaN").
        o.pretrain = project::PretrainStage{32, 1000.0, 4};
        auto diverged = runStudy(p, o);
        QVERIFY(!diverged.ok());
        QVERIFY2(diverged.error().message.find("pretraining diverged (non-finite outputs: 200 of 200 logits") !=
                     std::string::npos,
                 diverged.error().message.c_str());
    }

    void pretrainingAndFineTuningOptionsReplaceTheSpecsValues() {
        // The workbench's Advanced values: they reach the mechanism, its ledger entry and the
        // stored configuration; the spec's mechanism stays.
        auto p = freshProject("stage-options", "parallel");
        auto o = quick({"proxies", "mixture", "downstream"});
        o.tasks = {"ab"};
        o.methods = {"dp-mixmin"};
        o.reproducible = true;
        o.pretrain = project::PretrainStage{16, 0.05, 1};
        project::FinetuneStage finetune;
        finetune.clip = 0.5;
        finetune.batch = 8;
        finetune.lr = 0.01;
        finetune.steps = 3;
        finetune.mechanism = methods::FinetuneMechanism::Dirichlet;  // ignored: the mechanism is the spec's
        o.finetune = finetune;
        QVERIFY(!checkStudyRunOptions(o));
        auto report = runStudy(p, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->downstream.size(), std::size_t(1));
        const auto run = p.run(report->downstream[0].runId).value();
        const auto config = nlohmann::json::parse(run.configJson);
        QCOMPARE(config.at("finetune_clip").get<double>(), 0.5);
        QCOMPARE(config.at("finetune_batch").get<long long>(), 8LL);
        QCOMPARE(config.at("finetune_lr").get<double>(), 0.01);
        QCOMPARE(config.at("finetune_steps").get<long long>(), 3LL);
        QCOMPARE(config.at("pretrain_batch").get<long long>(), 16LL);
        QCOMPARE(config.at("pretrain_lr").get<double>(), 0.05);
        QCOMPARE(config.at("pretrain_steps").get<long long>(), 1LL);
        QCOMPARE(config.at("finetune_mechanism").get<std::string>(), std::string("dp-sgd"));
        const auto ledger = onlyLedger(p, run.id);
        QCOMPARE(ledger.entries().size(), std::size_t(2));
        QCOMPARE(ledger.entries()[1].stage, std::string("finetune"));
        QCOMPARE(ledger.entries()[1].steps, 3LL);
        QCOMPARE(ledger.entries()[1].clipNorm, 0.5);

        // A value out of the spec's range is refused by the options' check, naming it.
        o.finetune->steps = 0;
        auto zero = checkStudyRunOptions(o);
        QVERIFY(zero);
        QVERIFY2(zero->message.rfind("finetune.steps", 0) == 0, zero->message.c_str());
        // And a batch larger than split B fails before anything is stored, as from the spec.
        auto q = freshProject("stage-options-big", "parallel");
        o.finetune->steps = 3;
        o.finetune->batch = 100000;
        auto refused = runStudy(q, o);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("finetune.batch = 100000 exceeds") != std::string::npos,
                 refused.error().message.c_str());
        QVERIFY(q.runs().value().empty());
    }

    void optionsRefuseRepeatsAndZeroSteps() {
        StudyRunOptions o = quick({"proxies", "mixture"});
        QVERIFY(!checkStudyRunOptions(o));
        o.epsilons = {1.0, 1.0};
        auto twice = checkStudyRunOptions(o);
        QVERIFY(twice && twice->message.find("given twice") != std::string::npos);
        o.epsilons = {1.0};
        o.seeds = {3, 3};
        QVERIFY(checkStudyRunOptions(o));
        o.seeds = {3};
        o.finetuneSteps = 0;
        auto zero = checkStudyRunOptions(o);
        QVERIFY(zero && zero->message.rfind("finetune-steps = 0", 0) == 0);
        QCOMPARE(zero->field, std::string("finetune-steps"));
    }

    void cancellationLeavesNoRunningRow() {
        auto p = freshProject("cancel", "parallel");
        CancellationToken token;
        auto progress = [&](const ProgressEvent& e) {
            if (e.stage == "mixture") token.cancel();
        };
        bool cancelled = false;
        try {
            (void)runStudy(p, quick({"proxies", "mixture", "downstream"}), progress, token);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        // Cancelled after the first task's mixture learning: nothing of it was released, nothing
        // is left queued or running, and the proxy run (finished before) stays done.
        const auto runs = p.runs().value();
        QVERIFY(!runs.empty());
        for (const auto& r : runs) {
            QVERIFY2(r.status != project::RunStatus::Running && r.status != project::RunStatus::Queued,
                     r.method.c_str());
            if (r.method == "proxy") QVERIFY(r.status == project::RunStatus::Done);
        }
    }
};

QTEST_APPLESS_MAIN(TestStudyRunner)
#include "tst_study_runner.moc"
