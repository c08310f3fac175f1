// A run grid with secret randomness as cluster units without Slurm (a stand-in sbatch; each unit
// runs in this process as `dpmix worker` would): every attempt at a unit is a release, recorded
// in the data owner's budget store before it runs (unit_attempts.h; docs/CLUSTER.md, "Secret
// runs"). The submission reserves the grid; a worker that crashed after its reservation stays
// counted, the next attempt reserves again; a partial merge leaves the grid's reservation open;
// the merged runs are releases (ledger `secret`); after the merge the budget counts the merged
// runs and every later attempt; an attempt over the cap and one whose store the node cannot see
// run nothing; a grid sbatch refuses keeps no reservation; two attempts at one unit draw
// different noise.
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/cluster_submission.h"
#include "engine/executor/run_units.h"
#include "engine/executor/unit_attempts.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_budget.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "unit_job_fixture.h"

#include "tests/support/own_budget_store.h"
#include "tests/support/unit_test.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::executor;
namespace fs = std::filesystem;

namespace {

std::string specText() {
    return R"({
  "name": "tiny-secret-grid",
  "description": "4 classes; 3 public tasks; 2 sensitive tasks",
)" + testing::tinyStudyData() +
           R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3},
  "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 5},
             "pretrain": {"batch": 32, "lr": 0.1, "steps": 2},
             "finetune": {"batch": 64, "lr": 0.05, "steps": 2, "clip": 1.0}},
  "seeds": [0]
})";
}

double composed(const std::vector<privacy::BudgetRelease>& releases) {
    return privacy::composeBudget(releases).epsilon;
}

std::vector<privacy::BudgetRelease> joined(std::vector<privacy::BudgetRelease> a,
                                           const std::vector<privacy::BudgetRelease>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::string fileText(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

UnitBudget frozenUnitBudget(const std::string& frozen) {
    return unitBudgetFromJson(nlohmann::json::parse(frozen).at("unit_budget").dump()).value();
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

class TestSecretUnits : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    project::ProjectFile freshProject(const std::string& name) {
        return testing::createProjectFromSpecText(dir_.path(), name, specText());
    }

    // The grid of `options` frozen and submitted (the stand-in sbatch accepts it).
    std::pair<std::string, cluster::SubmitReport> submit(project::ProjectFile& p, const StudyRunOptions& options) {
        auto frozen = freezeStudyRun(p, options);
        if (!frozen.ok()) qWarning("%s", frozen.error().message.c_str());
        if (!frozen.ok()) return {};
        const auto units = studyRunWorkUnits(resolveRunChoices(p.spec(), options).seeds);
        auto job = cluster::submitJob(p, cluster::JobKind::Run, *frozen, units, {}, false,
                                      [&](const fs::path& d) { return snapshotProject(p, d); });
        if (!job.ok()) qWarning("%s", job.error().message.c_str());
        if (!job.ok()) return {};
        return {*frozen, *job};
    }

    static std::vector<privacy::BudgetRelease> plan(project::ProjectFile& p, std::vector<std::uint64_t> seeds) {
        auto o = testing::gridOptions();
        o.seeds = std::move(seeds);
        return planStudyReleases(p, o).value();
    }

private Q_SLOTS:
    void init() { dpmix::test_support::useOwnBudgetStore(dir_); }
    void initTestCase() {
        QVERIFY(dir_.isValid());
        testing::prepareJobFolder(dir_.path(), {{"pub", 200, 1}, {"sens", 600, 2}}, "4343");
    }

    void aSecretGridCountsEveryAttemptAndMergesAsReleases() {
        auto p = freshProject("secret");
        const auto [frozen, job] = submit(p, testing::gridOptions());
        QVERIFY(!job.dir.empty());
        const auto frozenJson = nlohmann::json::parse(frozen);
        QCOMPARE(frozenJson.at("options").at("reproducible").get<bool>(), false);
        const UnitBudget budget = frozenUnitBudget(frozen);
        QCOMPARE(budget.gridReservation, frozenJson.at("budget_reservation").get<long long>());
        QCOMPARE(budget.unitPlans.size(), std::size_t{2});

        // What a local run of the grid, and of seed 0 alone, would reserve: 3 releases per seed
        // (DP-MixMin's λ on A and its fine-tuning on B, Uniform's fine-tuning on the whole set).
        const auto grid = plan(p, {0, 1}), seed0 = plan(p, {0});
        QCOMPARE(grid.size(), std::size_t{6});
        QCOMPARE(seed0.size(), std::size_t{3});
        QVERIFY(near(composed(budget.unitPlans.at(0)), composed(seed0)));
        QVERIFY(near(project::projectBudget(p).value().total.epsilon, composed(grid)));

        // Unit 0's first worker reserved, then died before it ran anything: still counted (under
        // the grid). Its resubmission is attempt 2, a release of its own.
        QCOMPARE(reserveUnitAttempt(budget, 0, 0).value().attempt, 1LL);
        QVERIFY(near(project::projectBudget(p).value().total.epsilon, composed(grid)));
        QVERIFY(!testing::runUnitsHere(job.dir, {0}));
        const auto unit0 = nlohmann::json::parse(fileText(job.dir / "units" / "unit-0.json"));
        QCOMPARE(unit0.at("result").at("attempt").get<long long>(), 2LL);
        const double withAttempt = composed(joined(grid, seed0));
        QVERIFY(withAttempt > composed(grid));
        QVERIFY(near(project::projectBudget(p).value().total.epsilon, withAttempt));

        // A merge while unit 1 is missing stores unit 0's runs and leaves the grid reserved.
        auto early = cluster::mergeJobs(p);
        QVERIFY2(early.ok(), early.ok() ? "" : early.error().message.c_str());
        QCOMPARE(early->front().runIds.size(), std::size_t{2});
        auto open = project::projectBudget(p).value().reservations;
        QVERIFY(std::any_of(open.begin(), open.end(),
                            [&](const project::StoredReservation& r) { return r.id == budget.gridReservation; }));

        QVERIFY(!testing::runUnitsHere(job.dir, {1}));
        auto merged = cluster::mergeJobs(p);
        QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().message.c_str());
        QCOMPARE(merged->front().runIds.size(), std::size_t{2});

        // The merged runs are releases: secret randomness, keyed from the operating system.
        long long dpRuns = 0;
        for (const auto& r : p.runs().value()) {
            if (r.method == "proxy") continue;
            ++dpRuns;
            QVERIFY2(r.configJson.find("\"randomness\":\"secret\"") != std::string::npos, r.configJson.c_str());
            const std::string ledger = p.ledgers(r.id).value().back().ledgerJson;
            QVERIFY2(ledger.find("\"randomness\":\"secret\"") != std::string::npos, ledger.c_str());
            QVERIFY2(ledger.find("\"seeded\"") == std::string::npos, ledger.c_str());
            QVERIFY2(ledger.find("key from OS entropy") != std::string::npos, ledger.c_str());
        }
        QCOMPARE(dpRuns, 4LL);

        // Settled: the merged runs replace the grid's plan; unit 0's second attempt stays counted.
        const auto after = project::projectBudget(p).value();
        QCOMPARE(after.total.releases, 9LL);  // 6 merged + unit 0's second attempt's 3
        QVERIFY(near(after.total.epsilon, withAttempt));
        QCOMPARE(after.reservations.size(), std::size_t{1});
        QVERIFY(after.reservations[0].attempt && after.reservations[0].attempt->kept);
        QCOMPARE(after.reservations[0].attempt->attempt, 2LL);
        const std::string text = project::describeBudget(after);
        QVERIFY2(text.find("attempt 2 of unit 0") != std::string::npos, text.c_str());
        QVERIFY(p.verifyChain().value().ok);
    }

    void aLaterAttemptOverTheCapRunsNothing() {
        auto q = freshProject("capped");
        auto o = testing::gridOptions();
        const double grid = composed(plan(q, {0, 1})), more = composed(joined(plan(q, {0, 1}), plan(q, {0})));
        o.budgetCap = (grid + more) / 2;
        const auto [frozen, job] = submit(q, o);
        QVERIFY(!job.dir.empty());
        const UnitBudget budget = frozenUnitBudget(frozen);
        QCOMPARE(reserveUnitAttempt(budget, 0, 0).value().attempt, 1LL);  // crashed after reserving
        auto refused = testing::runUnitsHere(job.dir, {0});
        QVERIFY(refused);
        QVERIFY2(refused->find("over the cap") != std::string::npos, refused->c_str());
        QVERIFY2(refused->find("nothing was run") != std::string::npos, refused->c_str());
        QVERIFY(!fs::exists(job.dir / "units" / "unit-0.json"));
        QVERIFY(!fs::exists(job.dir / "work" / "unit-0"));
        QVERIFY(!testing::runUnitsHere(job.dir, {1}));  // unit 1's first attempt runs under the grid
    }

    void aStoreTheNodeCannotSeeRunsNothing() {
        UnitBudget b;
        b.store = fs::path(dir_.path()) / "no-such-folder" / "store.sqlite";
        b.dataset = {std::string(64, 'e'), "examples"};
        b.gridReservation = 1;
        b.unitPlans[0] = {privacy::BudgetRelease{}};
        auto refused = reserveUnitAttempt(b, 0, 0);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("cannot be found from this node") != std::string::npos,
                 refused.error().message.c_str());
        QVERIFY(!fs::exists(b.store.parent_path()));  // never created
        // A seed the frozen run does not hold is refused; one that plans no release needs nothing.
        QVERIFY(!reserveUnitAttempt(b, 1, 7).ok());
        b.unitPlans[0].clear();
        QCOMPARE(reserveUnitAttempt(b, 0, 0).value().attempt, 0LL);
    }

    void aGridSbatchRefusesReservesNothing() {
        // An sbatch that refuses the job (first on PATH for this call only): nothing was
        // submitted, so the grid's reservation is settled again and nothing stays counted.
        const std::string bin = dir_.filePath("refusing-bin");
        fs::create_directories(bin);
        std::ofstream(bin + "/sbatch") << "#!/bin/sh\necho 'sbatch: error: invalid partition' >&2\nexit 1\n";
        fs::permissions(bin + "/sbatch", fs::perms::owner_all);
        const std::string path = std::getenv("PATH");
        ::setenv("PATH", (bin + ":" + path).c_str(), 1);
        auto p = freshProject("refused");
        auto report = submitStudyRunToSlurm(p, testing::gridOptions(), {});
        ::setenv("PATH", path.c_str(), 1);
        QVERIFY(!report.ok());
        QVERIFY2(report.error().message.find("sbatch failed") != std::string::npos, report.error().message.c_str());
        QVERIFY2(report.error().message.find("stays counted") == std::string::npos, report.error().message.c_str());
        const auto budget = project::projectBudget(p).value();
        QVERIFY(budget.reservations.empty());
        QCOMPARE(budget.total.releases, 0LL);
        QVERIFY(!fs::exists(cluster::jobsRoot(p.path())) || fs::is_empty(cluster::jobsRoot(p.path())));
    }

    void twoAttemptsAtOneUnitDrawDifferentNoise() {
        auto p = freshProject("fresh-noise");
        auto o = testing::gridOptions();
        o.seeds = {0};
        o.methods = {"dp-mixmin"};
        o.stages = {"proxies", "mixture"};
        const auto [frozen, job] = submit(p, o);
        QVERIFY(!job.dir.empty());
        auto lambdaOf = [&]() {
            // The scratch project the unit's result names (each attempt has a folder of its own).
            const auto result = nlohmann::json::parse(fileText(job.dir / "units" / "unit-0.json")).at("result");
            auto scratch = project::ProjectFile::open(job.dir / result.at("scratch").get<std::string>(),
                                                      project::OpenMode::ReadOnly)
                               .value();
            for (const auto& r : scratch.runs().value())
                if (r.method == "dp-mixmin") return scratch.lambdas(r.id).value().front().values;
            return std::vector<double>{};
        };
        QVERIFY(!testing::runUnitsHere(job.dir, {0}));
        const auto first = lambdaOf();
        QVERIFY(!first.empty());
        fs::remove(job.dir / "units" / "unit-0.json");  // as if its result were lost: the unit runs again
        QVERIFY(!testing::runUnitsHere(job.dir, {0}));
        QCOMPARE(nlohmann::json::parse(fileText(job.dir / "units" / "unit-0.json"))
                     .at("result")
                     .at("attempt")
                     .get<long long>(),
                 2LL);
        QVERIFY(lambdaOf() != first);  // the same seed, new noise: nothing in the job folder fixed it
    }
};

QTEST_APPLESS_MAIN(TestSecretUnits)
#include "tst_secret_units.moc"
