// The run pool: every job exactly once whatever the thread count, errors by job index,
// cancellation and progress (its seeds: tests/engine/core/tst_seed_derivation).
#include "engine/audit/parallel_runs.h"

#include "tests/support/unit_test.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace dpmix;
using namespace dpmix::audit;
using dpmix::test_support::str;

class TestParallelRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyJobRunsExactlyOnce() {
        for (int threads : {1, 2, 5}) {
            std::vector<std::atomic<int>> hits(1000);
            auto r = runIndexedJobs(
                1000, threads,
                [&](long long i) -> std::optional<Error> {
                    hits[static_cast<std::size_t>(i)]++;
                    return std::nullopt;
                },
                "test");
            QVERIFY(!r);
            for (auto& h : hits) QCOMPARE(h.load(), 1);
        }
    }

    void firstErrorByIndexIsReturned() {
        auto r = runIndexedJobs(
            100, 1,
            [](long long i) -> std::optional<Error> {
                if (i == 5 || i == 9) return Error{"job " + std::to_string(i)};
                return std::nullopt;
            },
            "test");
        QVERIFY(r.has_value());
        QCOMPARE(r->message, std::string("job 5"));
    }

    void cancellationThrowsAndStops() {
        // The cancel comes from inside the work (the 100th job), not from a timer: what is
        // asserted is that the jobs stop, whatever the machine's speed.
        CancellationToken token;
        std::atomic<long long> started{0};
        const auto t0 = std::chrono::steady_clock::now();
        QVERIFY_THROWS_EXCEPTION(Cancelled, runIndexedJobs(
                                                1000000, 2,
                                                [&](long long) -> std::optional<Error> {
                                                    if (++started == 100) token.cancel();
                                                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                                    return std::nullopt;
                                                },
                                                "test", {}, token));
        QVERIFY2(started.load() < 1000, str(started.load()).c_str());  // at most a few in flight after the cancel
        QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    }

    void progressEndsAtTheTotal() {
        std::vector<ProgressEvent> events;
        auto r = runIndexedJobs(
            50, 2, [](long long) -> std::optional<Error> { return std::nullopt; }, "audit",
            [&](const ProgressEvent& e) { events.push_back(e); });
        QVERIFY(!r);
        QVERIFY(!events.empty());
        QCOMPARE(events.back().done, 50LL);
        QCOMPARE(events.back().total, 50LL);
        QCOMPARE(events.back().stage, std::string("audit"));
    }
};

QTEST_APPLESS_MAIN(TestParallelRuns)
#include "tst_parallel_runs.moc"
