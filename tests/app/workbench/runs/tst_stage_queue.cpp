// The workbench's job queue in a real window (offscreen): a request made while another runs is a
// visible "Queued" row with its own Cancel, and survives the failure or cancellation of the
// request before it (it used to sit in a hidden list that a failed job cleared); the later stages
// of the failed request itself are not started; every change of state is logged.
#include "app/workbench/main_window.h"
#include "app/workbench/runs/stage_queue.h"
#include "tests/app/workbench/fake_backends.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "widgets/job_list_widget.h"

#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

using namespace dpmix;
using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using widgets::JobState;

namespace {

/// A stage that waits until `release` is set (or it is cancelled), then fails or succeeds.
StageJob gatedStage(const QString& name, std::shared_ptr<std::atomic<bool>> release, bool fail,
                    std::shared_ptr<std::atomic<int>> ran = nullptr) {
    return {name, [=](const CancellationToken& cancel, const ProgressCallback&) -> Status {
                if (ran) ++*ran;
                while (!*release) {
                    if (cancel.isCancelled()) return std::nullopt;
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                }
                if (fail) return Error{"the stage failed on purpose"};
                return std::nullopt;
            }};
}

}  // namespace

class TstStageQueue : public QObject {
    Q_OBJECT

    testing::MemoryProjectStore store_;
    testing::EndlessStageController runs_;
    WorkbenchServices services() {
        return {&runs_, &store_, [] { return QStringLiteral("test"); }};
    }

private Q_SLOTS:
    void initTestCase() { dpmix::workbench::test::isolateSettings("tst_stage_queue"); }

    void aQueuedRequestSurvivesTheFailureBeforeIt() {
        MainWindow w(services());
        auto release = std::make_shared<std::atomic<bool>>(false);
        auto ranB = std::make_shared<std::atomic<int>>(0), ranA2 = std::make_shared<std::atomic<int>>(0);
        // Request A: two dependent stages, the first fails. Request B: one stage, made while A runs.
        w.startStages({gatedStage("A1", release, true), gatedStage("A2", release, false, ranA2)});
        w.startStages({gatedStage("B", release, false, ranB)});
        auto* list = jobList(w);
        QCOMPARE(list->rowCount(), 3);  // A1 running, A2 and B queued: nothing hidden
        QCOMPARE(stageQueue(w)->queuedCount(), 2);
        int queuedRows = 0;
        // Queued rows have negative ids in the order queued: A1 was -1 (replaced by its running row).
        for (int id = -2; id >= -3; --id) queuedRows += list->state(id) == JobState::Queued ? 1 : 0;
        QCOMPARE(queuedRows, 2);
        *release = true;
        QTRY_COMPARE_WITH_TIMEOUT(ranB->load(), 1, 5000);  // B ran although A failed
        QTRY_COMPARE_WITH_TIMEOUT(stageQueue(w)->runningJob(), 0, 5000);
        QCOMPARE(ranA2->load(), 0);                             // A's own later stage depends on A1: not started
        QVERIFY(list->statusText(-2).contains("not started"));  // A2
        const QString log = logView(w)->toPlainText();
        for (const char* line : {"Jobs: queued: B", "Jobs: started: A1",
                                 "Jobs: failed: A1: the stage failed on purpose", "Jobs: started: B", "Jobs: done: B"})
            QVERIFY2(log.contains(line), qPrintable(log));
    }

    void aQueuedJobHasItsOwnCancel() {
        MainWindow w(services());
        auto release = std::make_shared<std::atomic<bool>>(false);
        auto ranB = std::make_shared<std::atomic<int>>(0), ranC = std::make_shared<std::atomic<int>>(0);
        w.startStages({gatedStage("A", release, false)});
        w.startStages({gatedStage("B", release, false, ranB)});
        w.startStages({gatedStage("C", release, false, ranC)});
        auto* list = jobList(w);
        QPushButton* cancelB = list->cancelButton(-2);  // A was -1 until it started
        QVERIFY(cancelB && cancelB->isEnabled());
        cancelB->click();
        QCOMPARE(list->state(-2), JobState::Cancelled);
        QCOMPARE(stageQueue(w)->queuedCount(), 1);
        *release = true;
        QTRY_COMPARE_WITH_TIMEOUT(ranC->load(), 1, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(stageQueue(w)->runningJob(), 0, 5000);
        QCOMPARE(ranB->load(), 0);
        QVERIFY(logView(w)->toPlainText().contains("Jobs: cancelled before it started: B"));
    }

    void cancellingTheRunningJobStartsTheNextRequest() {
        MainWindow w(services());
        auto never = std::make_shared<std::atomic<bool>>(false);
        auto release = std::make_shared<std::atomic<bool>>(true);
        auto ranB = std::make_shared<std::atomic<int>>(0);
        w.startStages({gatedStage("A", never, false)});
        w.startStages({gatedStage("B", release, false, ranB)});
        const int running = stageQueue(w)->runningJob();
        QVERIFY(running > 0);
        jobList(w)->cancelButton(running)->click();
        QTRY_COMPARE_WITH_TIMEOUT(ranB->load(), 1, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(jobList(w)->state(running), JobState::Cancelled, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(stageQueue(w)->runningJob(), 0, 5000);
        QVERIFY(logView(w)->toPlainText().contains("Jobs: cancelled: A"));
    }
};

QTEST_MAIN(TstStageQueue)
#include "tst_stage_queue.moc"
