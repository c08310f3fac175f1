// The live calculators' runner: off the GUI thread, debounced, newest result only.
#include "app/workbench/runs/latest_result_runner.h"

#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>

using dpmix::workbench::LatestResultRunner;

class TstLatestResultRunner : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void burstOfEditsComputesOnceAndShowsTheLast() {
        LatestResultRunner runner(30);
        std::atomic<int> computed{0};
        QList<int> shown;
        for (int i = 1; i <= 10; ++i)
            runner.submit([&computed, &shown, i] {
                ++computed;
                return [&shown, i] { shown << i; };
            });
        QTRY_VERIFY(runner.isIdle());
        QCOMPARE(computed.load(), 1);
        QCOMPARE(shown, QList<int>{10});
    }

    void computationRunsOffTheGuiThreadAndAppliesOnIt() {
        LatestResultRunner runner(0);
        QThread* worker = nullptr;
        QThread* applier = nullptr;
        runner.submitNow([&] {
            worker = QThread::currentThread();
            return [&] { applier = QThread::currentThread(); };
        });
        QTRY_VERIFY(runner.isIdle());
        QVERIFY(worker && worker != thread());
        QCOMPARE(applier, thread());
    }

    void aSlowStaleResultNeverOverwritesANewerOne() {
        LatestResultRunner runner(0);
        QSignalSpy applied(&runner, &LatestResultRunner::applied);
        QList<QString> shown;
        std::atomic<bool> slowStarted{false};
        runner.submitNow([&] {
            slowStarted = true;
            QThread::msleep(150);  // still computing when the newer request comes
            return [&] { shown << "old"; };
        });
        QTRY_VERIFY(slowStarted.load());
        runner.submitNow([&] { return [&] { shown << "new"; }; });
        QTRY_VERIFY(runner.isIdle());
        QCOMPARE(shown, QList<QString>{"new"});
        QCOMPARE(applied.count(), 1);
    }

    void destroyingTheRunnerDropsPendingResults() {
        bool applied = false;
        std::atomic<bool> started{false};
        {
            LatestResultRunner runner(0);
            runner.submitNow([&] {
                started = true;
                QThread::msleep(50);
                return [&] { applied = true; };
            });
            QTRY_VERIFY(started.load());
        }  // waits for the computation, then its delivery must find the runner gone
        QTest::qWait(30);
        QVERIFY(!applied);
    }
};

QTEST_GUILESS_MAIN(TstLatestResultRunner)
#include "tst_latest_result_runner.moc"
