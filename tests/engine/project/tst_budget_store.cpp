// The budget store (budget_store.h, dataset_budget.h): reservations checked against the cap in
// one transaction (also by two connections racing), the plan replaced by what the runs spent
// when settled, an unsettled reservation counted in full, no double count of a run its own
// reservation covers, data sets kept apart, the file private, a foreign file refused, and the
// budget shared by two project files on the same sensitive data.
#include "engine/project/budget_store.h"
#include "engine/project/dataset_budget.h"
#include "engine/project/project_budget.h"

#include "engine/privacy/ledger.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <sys/stat.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

using namespace dpmix;
using namespace dpmix::project;
using dpmix::test_support::TempDir;

namespace {

privacy::LedgerEntry entry(double sigma) {
    return privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.05, sigma, 100, 1e-5, 1.0);
}

privacy::BudgetRelease release(double sigma) { return {0, "planned", "", entry(sigma)}; }

double composed(const std::vector<privacy::BudgetRelease>& releases) {
    return privacy::composeBudget(releases).epsilon;
}

const DatasetKey kData{std::string(64, 'b'), "examples"};

ProjectCharges projectWith(const std::string& key, std::vector<RunCharge> runs) {
    return {key, "/p/" + key, std::move(runs)};
}

}  // namespace

class TestBudgetStore : public QObject {
    Q_OBJECT
    TempDir dir_;
    int n_ = 0;
    std::string storePath() { return dir_.filePath("store-" + std::to_string(++n_) + ".sqlite"); }

private Q_SLOTS:
    void aReservationOverTheCapIsRefusedAndStoresNothing() {
        const std::string path = storePath();
        auto store = BudgetStore::open(path).value();
        const double one = composed({release(2.0)});
        const double two = composed({release(2.0), release(2.0)});
        QVERIFY(one > 0.0 && two > one);
        QVERIFY(!store.setCap(kData, (one + two) / 2));
        QVERIFY(store.reserve(kData, projectWith("p", {}), {release(2.0)}, std::nullopt, "first").value() > 0);
        auto refused = store.reserve(kData, projectWith("q", {}), {release(2.0)}, std::nullopt, "second");
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("over the cap") != std::string::npos, refused.error().message.c_str());
        QCOMPARE(testing::rawInteger(path, "SELECT count(*) FROM reservations"), 1LL);
        QCOMPARE(testing::rawInteger(path, "SELECT count(*) FROM planned"), 1LL);
        // The run's own cap is the smaller one when it is.
        auto own = store.reserve(kData, projectWith("r", {}), {}, one / 2, "nothing planned");
        QVERIFY(own);  // a plan without releases is never refused
    }

    void twoConnectionsRacingNeverBothPassTheCap() {
        for (int trial = 0; trial < 20; ++trial) {
            const std::string path = storePath();
            {
                auto store = BudgetStore::open(path).value();
                QVERIFY(!store.setCap(kData, composed({release(2.0)}) * 1.2));
            }
            std::atomic<int> ready{0}, passed{0};
            auto racer = [&](const std::string& key) {
                auto opened = BudgetStore::open(path);
                if (!opened) return;
                BudgetStore store = std::move(opened).value();
                ++ready;
                while (ready.load() < 2) std::this_thread::yield();
                if (store.reserve(kData, projectWith(key, {}), {release(2.0)}, std::nullopt, key)) ++passed;
            };
            std::thread a(racer, "a"), b(racer, "b");
            a.join();
            b.join();
            QCOMPARE(passed.load(), 1);
            QCOMPARE(testing::rawInteger(path, "SELECT count(*) FROM reservations"), 1LL);
        }
    }

    // Processes that open a store nobody has made yet, all at once (two `dpmix run` started
    // together on a new data set): every opener and every reader sees a dpmix store, never a
    // header half written by another's creation. Openers and readers race on fresh files.
    void openersAndReadersRacingOnANewStoreAllSucceed() {
        int failures = 0;
        std::string firstError;
        for (int trial = 0; trial < 150; ++trial) {
            const std::string path = storePath();
            std::atomic<int> ready{0};
            std::atomic<int> failed{0};
            std::mutex lock;
            auto race = [&](bool writer) {
                ++ready;
                while (ready.load() < 6) std::this_thread::yield();
                for (int k = 0; k < 5; ++k) {
                    std::optional<std::string> error;
                    if (writer) {
                        if (auto s = BudgetStore::open(path); !s) error = s.error().message;
                    } else if (auto r = BudgetStore::openForReading(path); !r) {
                        error = r.error().message;
                    }
                    if (error) {
                        ++failed;
                        std::lock_guard<std::mutex> g(lock);
                        if (firstError.empty()) firstError = *error;
                    }
                }
            };
            std::vector<std::thread> threads;
            for (int i = 0; i < 6; ++i) threads.emplace_back(race, i % 2 == 0);
            for (auto& t : threads) t.join();
            failures += failed.load();
        }
        QVERIFY2(failures == 0, (std::to_string(failures) + " failed opens, e.g. " + firstError).c_str());
    }

    void settlingReplacesThePlanByWhatTheRunsSpent() {
        auto store = BudgetStore::open(storePath()).value();
        const long long id =
            store.reserve(kData, projectWith("p", {}), {release(2.0), release(2.0)}, std::nullopt, "two planned")
                .value();
        auto before = store.charges(kData).value();
        QCOMPARE(before.reservations.size(), std::size_t{1});
        QCOMPARE(composed(countedReleases(before, nullptr)), composed({release(2.0), release(2.0)}));
        // Only one mechanism ran (the second was cancelled before it started).
        const ProjectCharges spent = projectWith("p", {{7, {}, {release(2.0)}}});
        QVERIFY(!store.settle(id, spent));
        auto after = store.charges(kData).value();
        QVERIFY(after.reservations.empty());
        QCOMPARE(after.spent.size(), std::size_t{1});
        QCOMPARE(after.spent[0].runId, 7LL);
        QCOMPARE(composed(countedReleases(after, nullptr)), composed({release(2.0)}));
    }

    void anUnsettledReservationIsCountedInFull() {
        const std::string path = storePath();
        {
            auto store = BudgetStore::open(path).value();
            (void)store.reserve(kData, projectWith("p", {}), {release(2.0), release(3.0)}, std::nullopt, "killed")
                .value();
            // The process "dies" here: nothing settles the reservation.
        }
        auto store = BudgetStore::open(path).value();
        auto charges = store.charges(kData).value();
        QCOMPARE(charges.reservations.size(), std::size_t{1});
        QCOMPARE(composed(countedReleases(charges, nullptr)), composed({release(2.0), release(3.0)}));
    }

    void aRunItsOwnOpenReservationCoversIsNotCountedTwice() {
        auto store = BudgetStore::open(storePath()).value();
        (void)store.reserve(kData, projectWith("p", {}), {release(2.0)}, std::nullopt, "running").value();
        auto charges = store.charges(kData).value();
        // The run this process is computing has recorded its ledger in the file already.
        const ProjectCharges mine = projectWith("p", {{1, currentProcess(), {release(2.0)}}});
        QCOMPARE(composed(countedReleases(charges, &mine)), composed({release(2.0)}));
        // Another process's run in the same project is not covered by this reservation.
        ProcessIdentity other = currentProcess();
        other.pid += 1;
        const ProjectCharges theirs = projectWith("p", {{2, other, {release(2.0)}}});
        QCOMPARE(composed(countedReleases(charges, &theirs)), composed({release(2.0), release(2.0)}));
    }

    void otherDataSetsAndUnitsAreKeptApart() {
        auto store = BudgetStore::open(storePath()).value();
        (void)store.reserve(kData, projectWith("p", {}), {release(2.0)}, std::nullopt, "on b").value();
        const DatasetKey otherData{std::string(64, 'c'), "examples"};
        const DatasetKey otherUnit{kData.contentHash, "users"};
        QVERIFY(!store.charges(otherData).value().known);
        QVERIFY(!store.charges(otherUnit).value().known);
        QVERIFY(store.charges(kData).value().known);
    }

    void theStoreIsPrivateAndAForeignFileIsRefused() {
        const std::string path = dir_.filePath("private/sub/store.sqlite");
        QVERIFY(BudgetStore::open(path));
        struct stat st {};
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(static_cast<int>(st.st_mode & 0777), 0600);
        QCOMPARE(::stat(dir_.filePath("private/sub").c_str(), &st), 0);
        QCOMPARE(static_cast<int>(st.st_mode & 0777), 0700);

        const std::string foreign = dir_.filePath("foreign.sqlite");
        testing::rawExec(foreign, "CREATE TABLE t(x); PRAGMA application_id = 7;");
        const std::string bytes = testing::readBytes(foreign);
        auto refused = BudgetStore::open(foreign);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("not a dpmix budget store") != std::string::npos,
                 refused.error().message.c_str());
        QCOMPARE(testing::readBytes(foreign), bytes);
    }

    void twoProjectFilesOnOneDataSetShareTheBudgetAndTheCap() {
        const std::string store = dir_.filePath("shared.sqlite");
        ProjectSpec spec = testing::tinySpec();
        spec.privacy.budgetStore = store;
        spec.privacy.budget = composed({release(2.0)}) * 1.2;
        auto a = ProjectFile::create(dir_.filePath("a.dpmix"), spec, testing::tinyFacts()).value();
        spec.name = "a duplicate with changes";
        auto b = ProjectFile::create(dir_.filePath("b.dpmix"), spec, testing::tinyFacts()).value();
        QVERIFY(projectKey(a) != projectKey(b));

        auto fresh = projectBudget(b).value();
        QVERIFY(!fresh.storeKnowsDataset);  // a new store: said, not silent
        QVERIFY(describeBudget(fresh).find("no record of this data set") != std::string::npos);

        {
            auto held = reserveBudget(a, {release(2.0)}, std::nullopt, "run in a").value();
            QVERIFY(held.id() > 0);
            // While it runs (and after, until settled), the duplicate sees it and is refused.
            auto seen = projectBudget(b).value();
            QCOMPARE(seen.total.epsilon, composed({release(2.0)}));
            QCOMPARE(seen.reservations.size(), std::size_t{1});
            auto refused = reserveBudget(b, {release(2.0)}, std::nullopt, "run in b");
            QVERIFY(!refused);
            QVERIFY2(refused.error().message.find("over the cap") != std::string::npos,
                     refused.error().message.c_str());
            // Project a records its run before the mechanism, as the pipeline does.
            const long long id = a.addRun({"dp-mixmin", "ac", 1.0, 0, R"({"stage":"mixture","rho":0.1})"}).value();
            privacy::Ledger ledger;
            ledger.record(entry(2.0));
            (void)a.recordLedger(id, ledger).value();
            (void)a.setRunStatus(id, RunStatus::Running).value();
            (void)a.setRunStatus(id, RunStatus::Done).value();
        }  // settled here
        auto after = projectBudget(b).value();
        QVERIFY(after.reservations.empty());
        QCOMPARE(after.otherReleases, 1LL);
        QCOMPARE(after.total.epsilon, composed({release(2.0)}));
        QVERIFY(!reserveBudget(b, {release(2.0)}, std::nullopt, "still over"));
    }
};

QTEST_GUILESS_MAIN(TestBudgetStore)
#include "tst_budget_store.moc"
