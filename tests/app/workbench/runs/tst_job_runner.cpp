// The Qt-side task abstraction: work runs on a worker thread, the GUI event loop stays live,
// progress and completion arrive on the GUI thread, cancel stops a job within a second.
#include "app/workbench/runs/job_runner.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QThread>
#include <QTimer>
#include <QtTest>

#include <atomic>

using namespace dpmix;
using namespace dpmix::workbench;

namespace {

// A fake stage: busy CPU work in small chunks, reporting every chunk (far more often than
// the GUI needs), polling the token between chunks like a real stage.
JobWork busyStage(std::atomic<bool>* exited = nullptr, long long maxChunks = 1'000'000) {
    return [exited, maxChunks](const CancellationToken& token, const ProgressCallback& progress) -> Status {
        volatile double sink = 0;
        for (long long chunk = 0; chunk < maxChunks; ++chunk) {
            throwIfCancelled(token);
            for (int i = 0; i < 20000; ++i) sink = sink + i * 1e-9;
            report(progress, {"fake", chunk, maxChunks, "working"});
        }
        if (exited) exited->store(true);
        return std::nullopt;
    };
}

}  // namespace

class TstJobRunner : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void guiEventLoopServicesTimersWhileAStageRuns() {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        const int id = runner.start("fake", busyStage());

        // A 10 ms timer must keep firing, never more than 100 ms apart, while the stage runs.
        QElapsedTimer clock;
        clock.start();
        qint64 last = 0, worstGap = 0;
        int ticks = 0;
        QTimer timer;
        timer.setInterval(10);
        connect(&timer, &QTimer::timeout, this, [&] {
            worstGap = std::max(worstGap, clock.elapsed() - last);
            last = clock.elapsed();
            ++ticks;
        });
        timer.start();
        QTest::qWait(600);
        timer.stop();
        QVERIFY(runner.isRunning(id));
        QVERIFY2(worstGap < 100, qPrintable(QString("worst gap %1 ms").arg(worstGap)));
        QVERIFY(ticks >= 20);

        // Cancel: the job ends, as Cancelled, within a second.
        QElapsedTimer cancelClock;
        cancelClock.start();
        runner.cancel(id);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 1000);
        QVERIFY(cancelClock.elapsed() < 1000);
        QCOMPARE(finished.at(0).at(0).toInt(), id);
        QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Cancelled);
        QVERIFY(!runner.isRunning(id));
    }

    void progressAndCompletionArriveOnTheGuiThread() {
        JobRunner runner(0);  // no coalescing: every report is delivered
        QList<long long> done;
        bool allOnGuiThread = true;
        connect(&runner, &JobRunner::progressed, this, [&](int, long long d, long long total, const QString& m) {
            allOnGuiThread &= QThread::currentThread() == thread();
            QCOMPARE(total, 5LL);
            QCOMPARE(m, QString("step"));
            done << d;
        });
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.start("count", [](const CancellationToken&, const ProgressCallback& progress) -> Status {
            for (int i = 1; i <= 5; ++i) report(progress, {"count", i, 5, "step"});
            return std::nullopt;
        });
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(done, (QList<long long>{1, 2, 3, 4, 5}));  // completion comes after all progress
        QVERIFY(allOnGuiThread);
        QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    }

    void coalescingKeepsTheLastReport() {
        JobRunner runner(10'000);  // at most one report per 10 s, except the first and the last
        QList<long long> done;
        connect(&runner, &JobRunner::progressed, this, [&](int, long long d, long long, const QString&) { done << d; });
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.start("many", [](const CancellationToken&, const ProgressCallback& progress) -> Status {
            for (int i = 1; i <= 1000; ++i) report(progress, {"many", i, 1000, {}});
            return std::nullopt;
        });
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(done, (QList<long long>{1, 1000}));
    }

    void exceptionsBecomeFailuresWithTheirMessage() {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.start("boom", [](const CancellationToken&, const ProgressCallback&) -> Status {
            throw std::runtime_error("cannot read data/train.csv: no such file");
        });
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Failed);
        QCOMPARE(finished.at(0).at(2).toString(), QString("cannot read data/train.csv: no such file"));
    }

    void returnedErrorsBecomeFailuresWithTheirMessage() {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.start("refused", [](const CancellationToken&, const ProgressCallback&) -> Status {
            return Error{"epsilon = 0 is out of range"};
        });
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Failed);
        QCOMPARE(finished.at(0).at(2).toString(), QString("epsilon = 0 is out of range"));
    }

    void stageThatReturnsEarlyOnCancelIsCancelled() {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        const int id = runner.start("polite", [](const CancellationToken& token, const ProgressCallback&) -> Status {
            while (!token.isCancelled()) QThread::msleep(5);
            return Error{"stopped"};  // an error after a cancel is the cancel's: still Cancelled
        });
        QTest::qWait(20);
        runner.cancel(id);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 1000);
        QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Cancelled);
    }

    void destroyingTheRunnerCancelsAndJoins() {
        std::atomic<bool> stopped{false};
        auto* runner = new JobRunner;
        runner->start("long", [&stopped](const CancellationToken& token, const ProgressCallback&) -> Status {
            while (!token.isCancelled()) QThread::msleep(5);
            stopped.store(true);
            return std::nullopt;
        });
        QElapsedTimer clock;
        clock.start();
        delete runner;
        QVERIFY(stopped.load());
        QVERIFY(clock.elapsed() < 1000);
        QTest::qWait(20);  // queued deliveries for the dead runner must be dropped harmlessly
    }

    void idsAreDistinctAndJobsRunConcurrently() {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        const int a = runner.start("a", busyStage(nullptr, 50));
        const int b = runner.start("b", busyStage(nullptr, 50));
        QVERIFY(a != b && a > 0 && b > 0);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 10000);
        QCOMPARE(runner.runningCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TstJobRunner)
#include "tst_job_runner.moc"
