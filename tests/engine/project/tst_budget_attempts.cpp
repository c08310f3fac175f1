// The attempts of a Slurm unit with secret randomness in the budget store (budget_store.h,
// docs/CLUSTER.md "Secret runs"): the first attempt of a unit runs under the grid's reservation
// (nothing more counted), every later one reserves the unit's releases again (counted), an
// attempt over the cap is refused with nothing stored, an attempt that reserved and then crashed
// stays counted, the grid's settlement keeps every later attempt counted for good, a settled or
// unknown grid refuses attempts, and a version-1 store gains the table when written.
#include "engine/project/budget_store.h"
#include "engine/project/project_budget.h"

#include "engine/privacy/ledger.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <sqlite3.h>

using namespace dpmix;
using namespace dpmix::project;
using dpmix::test_support::TempDir;

namespace {

privacy::BudgetRelease release(double sigma, const std::string& partition = "seed=0 rho=0.5") {
    return {0, "planned", partition,
            privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.05, sigma, 100, 1e-5, 1.0)};
}

double composed(const std::vector<privacy::BudgetRelease>& releases) {
    return privacy::composeBudget(releases).epsilon;
}

const DatasetKey kData{std::string(64, 'c'), "examples"};

// A grid of two units (seeds 0 and 1), one release each, reserved as a submission does.
struct Grid {
    long long reservation = 0;
    std::vector<privacy::BudgetRelease> unit0{release(2.0, "seed=0 rho=0.5")}, unit1{release(2.0, "seed=1 rho=0.5")};
    std::vector<privacy::BudgetRelease> all() const { return {unit0[0], unit1[0]}; }
};

Grid reserveGrid(BudgetStore& store) {
    Grid g;
    g.reservation = store.reserve(kData, {"p", "/p", {}}, g.all(), std::nullopt, "dpmix run: grid").value();
    return g;
}

}  // namespace

class TestBudgetAttempts : public QObject {
    Q_OBJECT
    TempDir dir_;
    int n_ = 0;
    std::string storePath() { return dir_.filePath("attempts-" + std::to_string(++n_) + ".sqlite"); }

private Q_SLOTS:
    void theFirstAttemptRunsUnderTheGridLaterOnesReserveAgain() {
        const std::string path = storePath();
        auto store = BudgetStore::open(path).value();
        const Grid g = reserveGrid(store);
        const double grid = composed(g.all());

        auto first = store.reserveAttempt(kData, {g.reservation, 0, "Slurm job 7 array task 0, restart 0", g.unit0},
                                          std::nullopt);
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
        QCOMPARE(first->attempt, 1LL);
        QCOMPARE(first->reservation, 0LL);  // covered by the grid's plan
        QCOMPARE(composed(countedReleases(store.charges(kData).value(), nullptr)), grid);

        // The worker crashed after its reservation; the resubmitted task is a second release.
        auto second = store.reserveAttempt(kData, {g.reservation, 0, "Slurm job 8 array task 0, restart 0", g.unit0},
                                           std::nullopt);
        QVERIFY(second.ok());
        QCOMPARE(second->attempt, 2LL);
        QVERIFY(second->reservation > g.reservation);
        // A requeue of that task: a third.
        auto third = store.reserveAttempt(kData, {g.reservation, 0, "Slurm job 8 array task 0, restart 1", g.unit0},
                                          std::nullopt);
        QCOMPARE(third.value().attempt, 3LL);
        // Unit 1's first attempt is its own first.
        QCOMPARE(store.reserveAttempt(kData, {g.reservation, 1, "", g.unit1}, std::nullopt).value().attempt, 1LL);

        const auto charges = store.charges(kData).value();
        // Seed 0's split released three times, seed 1's once: composed as such.
        const std::vector<privacy::BudgetRelease> expected{g.unit0[0], g.unit0[0], g.unit0[0], g.unit1[0]};
        QCOMPARE(composed(countedReleases(charges, nullptr)), composed(expected));
        QVERIFY(composed(expected) > grid);
        QCOMPARE(charges.reservations.size(), std::size_t{3});
        long long attempts = 0;
        for (const auto& r : charges.reservations) {
            if (r.id == g.reservation) {
                QCOMPARE(r.attemptsStarted, 4LL);
                QVERIFY(!r.attempt);
                continue;
            }
            QVERIFY(r.attempt);
            QCOMPARE(r.attempt->gridReservation, g.reservation);
            QCOMPARE(r.attempt->unit, 0LL);
            QVERIFY(!r.attempt->kept);
            attempts += r.attempt->attempt;
        }
        QCOMPARE(attempts, 2LL + 3LL);
        QCOMPARE(testing::rawInteger(path, "SELECT count(*) FROM attempts"), 4LL);
    }

    void theGridsSettlementKeepsItsLaterAttemptsCounted() {
        auto store = BudgetStore::open(storePath()).value();
        const Grid g = reserveGrid(store);
        QVERIFY(store.reserveAttempt(kData, {g.reservation, 0, "", g.unit0}, std::nullopt).ok());
        QVERIFY(store.reserveAttempt(kData, {g.reservation, 0, "", g.unit0}, std::nullopt).ok());
        QVERIFY(store.reserveAttempt(kData, {g.reservation, 1, "", g.unit1}, std::nullopt).ok());
        // The merge stores one run per unit (what the merged attempts spent) and settles the grid.
        const ProjectCharges merged{"p", "/p", {{11, {}, {g.unit0[0]}}, {12, {}, {g.unit1[0]}}}};
        QVERIFY(!store.settle(g.reservation, merged));
        const auto charges = store.charges(kData).value();
        QCOMPARE(charges.reservations.size(), std::size_t{1});  // unit 0's second attempt, for good
        QVERIFY(charges.reservations[0].attempt && charges.reservations[0].attempt->kept);
        QCOMPARE(composed(countedReleases(charges, &merged)), composed({g.unit0[0], g.unit0[0], g.unit1[0]}));

        // The grid is settled: no attempt runs under it any more.
        auto late = store.reserveAttempt(kData, {g.reservation, 1, "", g.unit1}, std::nullopt);
        QVERIFY(!late.ok());
        QVERIFY2(late.error().message.find("settled") != std::string::npos, late.error().message.c_str());
        // Nor under a reservation the store does not hold, or of another data set.
        QVERIFY(!store.reserveAttempt(kData, {g.reservation + 100, 0, "", g.unit0}, std::nullopt).ok());
        QVERIFY(!store.reserveAttempt({std::string(64, 'd'), "examples"}, {g.reservation, 0, "", g.unit0}, std::nullopt)
                     .ok());

        // How `dpmix budget` words it.
        ProjectBudget b;
        b.unit = "examples";
        b.storePath = "/store";
        b.storeSource = "DPMIX_BUDGET_STORE";
        b.reservations = charges.reservations;
        const std::string text = describeBudget(b);
        QVERIFY2(text.find("attempt 2 of unit 0") != std::string::npos, text.c_str());
        QVERIFY2(text.find("counted for good") != std::string::npos, text.c_str());
    }

    void aLaterAttemptOverTheCapIsRefusedAndStoresNothing() {
        const std::string path = storePath();
        auto store = BudgetStore::open(path).value();
        const Grid g = reserveGrid(store);
        const double grid = composed(g.all());
        const double withOneMore = composed({g.unit0[0], g.unit0[0], g.unit1[0]});
        const double cap = (grid + withOneMore) / 2;  // the grid fits, a second attempt of unit 0 does not
        QVERIFY(store.reserveAttempt(kData, {g.reservation, 0, "", g.unit0}, cap).ok());  // covered: not re-checked
        auto refused = store.reserveAttempt(kData, {g.reservation, 0, "", g.unit0}, cap);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("over the cap") != std::string::npos, refused.error().message.c_str());
        QVERIFY2(refused.error().message.find("attempt 2 of unit 0") != std::string::npos,
                 refused.error().message.c_str());
        QCOMPARE(testing::rawInteger(path, "SELECT count(*) FROM attempts"), 1LL);
        QCOMPARE(testing::rawInteger(path, "SELECT count(*) FROM reservations"), 1LL);
        // The store's own cap refuses it too.
        QVERIFY(!store.setCap(kData, cap));
        QVERIFY(!store.reserveAttempt(kData, {g.reservation, 0, "", g.unit0}, std::nullopt).ok());
        QVERIFY(!store.setCap(kData, withOneMore * 1.01));
        QCOMPARE(store.reserveAttempt(kData, {g.reservation, 0, "", g.unit0}, std::nullopt).value().attempt, 2LL);
    }

    void aVersionOneStoreGainsTheAttemptsWhenWritten() {
        const std::string path = storePath();
        {
            auto store = BudgetStore::open(path).value();
            (void)reserveGrid(store);
        }
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "DROP TABLE attempts; PRAGMA user_version = 1;", nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
        {
            auto reading = BudgetStore::openForReading(path).value();  // read as it is: no attempts
            QVERIFY(reading);
            QCOMPARE(reading->charges(kData).value().reservations.size(), std::size_t{1});
        }
        auto store = BudgetStore::open(path).value();
        QCOMPARE(testing::rawInteger(path, "PRAGMA user_version"), 2LL);
        QCOMPARE(store.reserveAttempt(kData, {1, 0, "", {release(2.0)}}, std::nullopt).value().attempt, 1LL);
    }
};

QTEST_APPLESS_MAIN(TestBudgetAttempts)
#include "tst_budget_attempts.moc"
