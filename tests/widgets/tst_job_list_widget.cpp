// The jobs dock's list: rows, progress, elapsed/ETA formatting, Cancel.
#include "widgets/job_list_widget.h"

#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace dpmix::widgets;

class TstJobListWidget : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void durationFormatting() {
        QCOMPARE(formatDuration(0), QString("0:00"));
        QCOMPARE(formatDuration(7'999), QString("0:07"));
        QCOMPARE(formatDuration(754'000), QString("12:34"));
        QCOMPARE(formatDuration(3'723'000), QString("1:02:03"));
    }

    void etaByLinearExtrapolation() {
        // 25 of 100 done in 10 s: 75 remain at 0.4 s each = 30 s.
        QCOMPARE(estimateRemainingMs(10'000, 25, 100), qint64(30'000));
        QCOMPARE(estimateRemainingMs(10'000, 100, 100), qint64(0));
        QCOMPARE(estimateRemainingMs(10'000, 0, 100), qint64(-1));  // nothing done yet
        QCOMPARE(estimateRemainingMs(10'000, 5, 0), qint64(-1));    // total unknown
    }

    void rowLifecycleAndCancel() {
        JobListWidget list;
        list.show();
        QSignalSpy cancels(&list, &JobListWidget::cancelRequested);
        list.addJob(7, "Mixture learning");
        list.addJob(8, "Fine-tuning");
        QCOMPARE(list.rowCount(), 2);
        QCOMPARE(list.rowOf(8), 1);
        QCOMPARE(list.state(7), JobState::Running);

        list.setProgress(7, 30, 120, "loss 0.41");
        QCOMPARE(list.progressBar(7)->value(), 250);  // 30/120 in per-mille
        QCOMPARE(list.progressBar(7)->text(), QString("30 / 120"));
        QCOMPARE(list.statusText(7), QString("loss 0.41"));

        QTest::mouseClick(list.cancelButton(8), Qt::LeftButton);
        QCOMPARE(cancels.count(), 1);
        QCOMPARE(cancels.at(0).at(0).toInt(), 8);

        list.setFinished(8, JobState::Cancelled, QString());
        QCOMPARE(list.state(8), JobState::Cancelled);
        QVERIFY(!list.cancelButton(8)->isEnabled());
        QCOMPARE(list.etaText(8), QString("–"));
        list.setFinished(7, JobState::Failed, "out of memory");
        QCOMPARE(list.statusText(7), QString("Failed: out of memory"));

        list.addJob(9, "Evaluation");
        list.clearFinished();
        QCOMPARE(list.rowCount(), 1);
        QCOMPARE(list.rowOf(9), 0);
    }

    // A job that knows its plan shows one bar for the whole job (docs/MANUAL.md, "Running") — a new stage starting
    // at 0 / 100 does not send it back to 0 (the dock used to show 60/60 "ETA 0:00" at the end of
    // each stage and restart), and the stage's own count stays in the text.
    void aJobShareDrivesTheBarAcrossStages() {
        JobListWidget list;
        list.addJob(3, "Compare with baselines");
        list.setProgress(3, 60, 60, "pretrain", 0.25);
        QCOMPARE(list.progressBar(3)->value(), 250);
        QCOMPARE(list.progressBar(3)->text(), QString("25% of the job · 60 / 60"));
        list.setProgress(3, 0, 100, "finetune", 0.30);
        QCOMPARE(list.progressBar(3)->value(), 300);  // not 0: the job goes on
        QCOMPARE(list.progressBar(3)->text(), QString("30% of the job · 0 / 100"));
        list.setProgress(3, 5, 0, "", 0.31);  // a stage without a total still shows the job's share
        QCOMPARE(list.progressBar(3)->text(), QString("31% of the job"));
        QCOMPARE(list.progressBar(3)->maximum(), 1000);       // not the busy indicator
        list.setFinished(3, JobState::Succeeded, QString());  // the unreported last part is done too
        QCOMPARE(list.progressBar(3)->value(), 1000);
        QCOMPARE(list.progressBar(3)->text(), QString("100% of the job"));
    }

    void queuedRowsWaitWithTheirOwnCancelAndSurviveClearing() {
        JobListWidget list;
        list.addJob(1, "running");
        list.addQueuedJob(-1, "waiting");
        QCOMPARE(list.state(-1), JobState::Queued);
        QCOMPARE(list.statusText(-1), QString("Queued"));
        QCOMPARE(list.elapsedText(-1), QString("–"));  // no clock before it starts
        QSignalSpy cancels(&list, &JobListWidget::cancelRequested);
        list.cancelButton(-1)->click();
        QCOMPARE(cancels.takeFirst().at(0).toInt(), -1);
        list.setFinished(1, JobState::Succeeded, {});
        list.clearFinished();  // the queued row stays, the finished one goes
        QCOMPARE(list.rowCount(), 1);
        QCOMPARE(list.rowOf(-1), 0);
        list.removeJob(-1);  // it started under the runner's id
        QCOMPARE(list.rowCount(), 0);
        QCOMPARE(list.rowOf(-1), -1);
    }

    void progressAfterFinishIsIgnored() {
        JobListWidget list;
        list.addJob(1, "stage");
        list.setFinished(1, JobState::Succeeded, QString());
        list.setProgress(1, 1, 10, "late");
        QCOMPARE(list.statusText(1), QString("Done"));
        QCOMPARE(list.progressBar(1)->value(), list.progressBar(1)->maximum());
    }
};

QTEST_MAIN(TstJobListWidget)
#include "tst_job_list_widget.moc"
