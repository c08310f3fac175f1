// The small shared pieces of engine/core: cancellation, progress, version, the file-size limit.
#include "engine/core/cancellation.h"
#include "engine/core/file_size_limit.h"
#include "engine/core/progress.h"
#include "engine/core/version.h"

#include <QtTest>

#include <csignal>
#include <thread>
#include <vector>

class TestCoreSupport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void copiesOfATokenShareOneRequest() {
        dpmix::CancellationToken token;
        const dpmix::CancellationToken copy = token;
        QVERIFY(!copy.isCancelled());
        dpmix::throwIfCancelled(copy);  // nothing requested: no throw
        token.cancel();
        QVERIFY(copy.isCancelled());
        QVERIFY_THROWS_EXCEPTION(dpmix::Cancelled, dpmix::throwIfCancelled(copy));
        QVERIFY(!dpmix::CancellationToken().isCancelled());  // a new token is its own
    }

    void aCancellationFromAnotherThreadIsSeen() {
        dpmix::CancellationToken token;
        std::thread canceller([token] { token.cancel(); });
        canceller.join();
        QVERIFY(token.isCancelled());
    }

    void progressReachesTheCallbackAndAnEmptyOneIsAllowed() {
        std::vector<dpmix::ProgressEvent> seen;
        const dpmix::ProgressCallback cb = [&](const dpmix::ProgressEvent& e) { seen.push_back(e); };
        dpmix::report(cb, {"mixture", 3, 10, "loss 0.5"});
        dpmix::report({}, {"mixture", 4, 10, ""});  // no callback: nothing happens
        QCOMPARE(seen.size(), std::size_t(1));
        QCOMPARE(seen[0].stage, std::string("mixture"));
        QCOMPARE(seen[0].done, 3LL);
        QCOMPARE(seen[0].total, 10LL);
        QCOMPARE(seen[0].message, std::string("loss 0.5"));
    }

    void theVersionIsTheProjects() { QCOMPARE(dpmix::versionString(), std::string(DPMIX_EXPECTED_VERSION)); }

    void aFileSizeLimitBecomesAnErrorNotASignal() {
        struct sigaction before {};
        QCOMPARE(sigaction(SIGXFSZ, nullptr, &before), 0);
        dpmix::reportFileSizeLimitAsError();
        struct sigaction after {};
        QCOMPARE(sigaction(SIGXFSZ, nullptr, &after), 0);
        QVERIFY(after.sa_handler == SIG_IGN);  // a write past RLIMIT_FSIZE now fails with EFBIG
        (void)sigaction(SIGXFSZ, &before, nullptr);
    }
};

QTEST_APPLESS_MAIN(TestCoreSupport)
#include "tst_core_support.moc"
