// Run on cluster… and the Cluster jobs dock without a Slurm (a fake backend): the view shows each
// job and its units' states, asks once for the merge of a job whose units are all done (never for
// a read-only project, or with the automatic merge off until the user asks), and the window runs
// that merge as a stage; the run controller refuses what a cluster cannot run (training audits,
// PSG), names a secret grid's stage a release of every attempt, and hands the rest to the backend
// with the dialog's Slurm values.
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/audit_dialog.h"
#include "app/workbench/runs/cluster_jobs_view.h"
#include "app/workbench/runs/cluster_run_dialog.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/epsilon_sweep_dialog.h"
#include "tests/app/workbench/fake_backends.h"
#include "tests/app/workbench/generated_project.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/runs/fake_cluster_backend.h"
#include "tests/app/workbench/window_parts.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using dpmix::workbench::testing::FakeClusterBackend;
using dpmix::workbench::testing::jobWith;

namespace {

// Waits for the view's next answer.
bool waitForStates(ClusterJobsView& view) {
    QSignalSpy updated(&view, &ClusterJobsView::statesUpdated);
    return updated.wait(5000);
}

}  // namespace

class TestClusterJobsView : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_cluster_jobs_view");
        QVERIFY(dir_.isValid());
    }

    void showsEachJobWithItsUnitsStates() {
        FakeClusterBackend backend;
        backend.jobs = {jobWith("job-a", {"done", "running", "failed"})};
        ClusterJobsView view(&backend);
        QSignalSpy merges(&view, &ClusterJobsView::mergeRequested);
        view.setProject("/tmp/x.dpmix", false);
        QVERIFY(waitForStates(view));
        QCOMPARE(view.tree()->topLevelItemCount(), 1);
        QTreeWidgetItem* job = view.tree()->topLevelItem(0);
        QCOMPARE(job->text(0), QString("job-a"));
        QCOMPARE(job->text(1), QString("run grid"));
        QCOMPARE(job->text(3), QString("1 / 3"));
        QCOMPARE(job->text(4), QString("1"));  // running
        QCOMPARE(job->text(6), QString("1"));  // failed
        QCOMPARE(job->childCount(), 3);
        QCOMPARE(job->child(2)->text(2), QString("failed (Slurm CANCELLED)"));
        QVERIFY(job->child(2)->toolTip(0).contains("/tmp/job-a/logs/unit-2.log"));
        // Unit 0 is done: a run grid's runs land as their units finish, in unit order.
        QCOMPARE(merges.count(), 1);
        view.selectJob("job-a");
        QVERIFY(view.resubmitButton()->isEnabled());
        QVERIFY(view.cancelButton()->isEnabled());
        QVERIFY(view.mergeButton()->isEnabled());
        QSignalSpy resubmits(&view, &ClusterJobsView::resubmitRequested);
        QSignalSpy cancels(&view, &ClusterJobsView::cancelRequested);
        view.resubmitButton()->click();
        view.cancelButton()->click();
        QCOMPARE(resubmits.count(), 1);
        QCOMPARE(resubmits[0][0].toString(), QString("job-a"));
        QCOMPARE(cancels.count(), 1);
        QVERIFY(view.summaryLabel()->text().contains("1 job"));
    }

    void aFinishedJobIsMergedOnceAutomatically() {
        FakeClusterBackend backend;
        backend.jobs = {jobWith("job-b", {"done", "done"}), jobWith("job-c", {"done", "pending"})};
        ClusterJobsView view(&backend);
        QSignalSpy merges(&view, &ClusterJobsView::mergeRequested);
        view.setProject("/tmp/x.dpmix", false);
        QVERIFY(waitForStates(view));
        QCOMPARE(merges.count(), 2);  // job-b whole, job-c's unit 0
        QCOMPARE(merges[0][0].toString(), QString("job-b"));
        QCOMPARE(merges[1][0].toString(), QString("job-c"));
        QCOMPARE(view.tree()->topLevelItem(0)->text(2), QString("finished, not stored yet"));
        view.refresh();
        QVERIFY(waitForStates(view));
        QCOMPARE(merges.count(), 2);  // asked once per state, not at every poll
        backend.jobs[0].mergedRun = 12;
        backend.jobs[1] = jobWith("job-c", {"done", "done"});  // job-c's last unit lands
        view.refresh();
        QVERIFY(waitForStates(view));
        QCOMPARE(view.tree()->topLevelItem(0)->text(2), QString("stored"));
        QCOMPARE(view.tree()->topLevelItem(0)->text(7), QString("runs from 12"));
        QCOMPARE(merges.count(), 3);
        QCOMPARE(merges[2][0].toString(), QString("job-c"));
        view.selectJob("job-b");
        QVERIFY(!view.mergeButton()->isEnabled());
        QVERIFY(!view.cancelButton()->isEnabled());
    }

    void anAuditIsStoredOnlyWhole() {
        FakeClusterBackend backend;
        backend.jobs = {jobWith("job-i", {"done", "done", "running", "pending"}, "audit")};
        ClusterJobsView view(&backend);
        QSignalSpy merges(&view, &ClusterJobsView::mergeRequested);
        view.setProject("/tmp/x.dpmix", false);
        QVERIFY(waitForStates(view));
        QCOMPARE(merges.count(), 0);  // its bound needs every run
        view.selectJob("job-i");
        QVERIFY(!view.mergeButton()->isEnabled());
    }

    void aReadOnlyProjectIsNeverMergedInto() {
        FakeClusterBackend backend;
        backend.jobs = {jobWith("job-d", {"done", "done"})};
        ClusterJobsView view(&backend);
        QSignalSpy merges(&view, &ClusterJobsView::mergeRequested);
        view.setProject("/tmp/x.dpmix", true);
        QVERIFY(waitForStates(view));
        QCOMPARE(view.tree()->topLevelItemCount(), 1);
        view.selectJob("job-d");
        QVERIFY(!view.mergeButton()->isEnabled());
        QCOMPARE(merges.count(), 0);
    }

    void withTheAutomaticMergeOffTheUserMerges() {
        FakeClusterBackend backend;
        backend.jobs = {jobWith("job-e", {"done", "done"}, "audit")};
        ClusterJobsView view(&backend);
        view.autoMergeBox()->setChecked(false);
        QSignalSpy merges(&view, &ClusterJobsView::mergeRequested);
        view.setProject("/tmp/x.dpmix", false);
        QVERIFY(waitForStates(view));
        QCOMPARE(view.tree()->topLevelItem(0)->text(1), QString("mixture audit"));
        QCOMPARE(merges.count(), 0);
        view.selectJob("job-e");
        QVERIFY(view.mergeButton()->isEnabled());
        view.mergeButton()->click();
        QCOMPARE(merges.count(), 1);
    }

    void aStatusErrorIsShownAndNothingIsMerged() {
        FakeClusterBackend backend;
        backend.statusError = "job job-f: job.json is not valid JSON";
        ClusterJobsView view(&backend);
        QSignalSpy merges(&view, &ClusterJobsView::mergeRequested);
        view.setProject("/tmp/x.dpmix", false);
        QVERIFY(waitForStates(view));
        QVERIFY(view.summaryLabel()->text().contains("job.json is not valid JSON"));
        QCOMPARE(view.tree()->topLevelItemCount(), 0);
        QCOMPARE(merges.count(), 0);
    }

    void runningUnitsArePolledUntilTheyEnd() {
        FakeClusterBackend backend;
        backend.jobs = {jobWith("job-g", {"running", "pending"})};
        ClusterJobsView view(&backend);
        view.setPollIntervalMs(50);
        QSignalSpy merges(&view, &ClusterJobsView::mergeRequested);
        view.setProject("/tmp/x.dpmix", false);
        QVERIFY(waitForStates(view));
        {
            QMutexLocker lock(&backend.mutex);
            backend.jobs = {jobWith("job-g", {"done", "done"})};
        }
        // No refresh asked: the poll finds the units done and asks for the merge.
        QTRY_COMPARE_WITH_TIMEOUT(merges.count(), 1, 5000);
    }

    void aFinishedJobIsNotPolledWhileItsMergeIsAwaited() {
        // The merge fails (the project never shows the job stored): no poll every interval after
        // it; the window's refresh at the end of a stage is what shows a merge's outcome.
        FakeClusterBackend backend;
        backend.jobs = {jobWith("job-h", {"done", "done"})};
        ClusterJobsView view(&backend);
        view.setPollIntervalMs(20);
        QSignalSpy merges(&view, &ClusterJobsView::mergeRequested);
        view.setProject("/tmp/x.dpmix", false);
        QVERIFY(waitForStates(view));
        QCOMPARE(merges.count(), 1);
        int callsAfterAnswer = 0;
        {
            QMutexLocker lock(&backend.mutex);
            callsAfterAnswer = backend.statusCalls;
        }
        // Ten poll intervals: a view still polling would have asked again several times.
        QTest::qWait(200);
        QMutexLocker lock(&backend.mutex);
        QCOMPARE(backend.statusCalls, callsAfterAnswer);
        QCOMPARE(merges.count(), 1);
    }

    void theControllerRefusesWhatAClusterCannotRun() {
        FakeClusterBackend backend;
        EngineRunController runs([](auto&, auto&, auto&, auto&, auto&) -> dpmix::Status { return std::nullopt; });
        runs.setProject(dir_.filePath("p.dpmix"), false);
        RunAction action;
        action.kind = RunKind::DpMixMin;
        action.parameters.seeds = "0,1";
        action.cluster = ClusterSubmission{};
        // Without a backend: refused.
        auto none = runs.planAction(action);
        QVERIFY(!none);
        QVERIFY(QString::fromStdString(none.error().message).contains("without the cluster executor"));
        runs.setClusterBackend(&backend);
        // Secret randomness runs as a release: the stage says every attempt is one.
        auto secret = runs.planAction(action);
        QVERIFY2(secret, secret ? "" : secret.error().message.c_str());
        QVERIFY2(secret->front().stage.contains("every attempt is a release"), qPrintable(secret->front().stage));
        action.parameters.reproducible = true;
        backend.cannotSubmit = "sbatch is not on PATH";
        auto cannot = runs.planAction(action);
        QVERIFY(!cannot);
        QCOMPARE(cannot.error().message, std::string("sbatch is not on PATH"));
        backend.cannotSubmit.clear();
        QVERIFY(runs.planAction(action));
        // The ε sweep of the panel's study goes as a run grid too (one task per seed, every ε).
        RunAction sweep = action;
        sweep.kind = RunKind::EpsilonSweep;
        sweep.sweep.epsilons = {0.5, 2.0};
        auto sweepStages = runs.planAction(sweep);
        QVERIFY2(sweepStages, sweepStages ? "" : sweepStages.error().message.c_str());
        QVERIFY(sweepStages->front().stage.contains("ε sweep"));
        action.kind = RunKind::PrivateSet;
        action.parameters.reproducible = false;  // what a cluster cannot run is named first
        auto psg = runs.planAction(action);
        QVERIFY(!psg);
        QVERIFY(QString::fromStdString(psg.error().message).contains("runs here only"));
        action.parameters.reproducible = true;
        action.kind = RunKind::Audit;
        action.audit.task = "ac";
        action.audit.mechanism = "dp-sgd";
        auto training = runs.planAction(action);
        QVERIFY(!training);
        QVERIFY(QString::fromStdString(training.error().message).contains("fine-tuning mechanism runs here"));
    }

    void aSubmissionCarriesThePanelsRequestAndTheDialogsSlurmValues() {
        const auto generated = testing::generateProject(dir_.filePath("submit.dpmix"));
        FakeClusterBackend backend;
        EngineRunController runs([](auto&, auto&, auto&, auto&, auto&) -> dpmix::Status { return std::nullopt; });
        runs.setProject(generated.path, false);
        runs.setClusterBackend(&backend);
        QSignalSpy submitted(&runs, &EngineRunController::clusterJobSubmitted);

        ClusterRunDialog dialog("the study");
        dialog.partitionEdit()->setText("gpu");
        dialog.timeEdit()->setText("02:00:00");
        dialog.gpusBox()->setValue(1);
        dialog.maxParallelBox()->setValue(4);
        RunAction action;
        action.kind = dialog.studyKind();
        QVERIFY(action.kind == RunKind::DpMixMin);
        action.parameters.seeds = "0,1";
        action.parameters.epsilon = 2.0;
        action.parameters.reproducible = true;
        action.cluster = dialog.submission();
        auto stages = runs.planAction(action);
        QVERIFY(stages);
        QCOMPARE(stages->size(), 1);
        QVERIFY(stages->front().stage.contains("Submit to Slurm"));
        QVERIFY(!stages->front().work(dpmix::CancellationToken{}, {}));
        QCOMPARE(backend.studies.size(), std::size_t(1));
        QCOMPARE(backend.studies[0].seeds, (std::vector<long long>{0, 1}));
        QCOMPARE(backend.studies[0].epsilons, std::vector<double>{2.0});
        QVERIFY(backend.studies[0].reproducible);
        QCOMPARE(backend.submissions[0].slurm.partition, std::string("gpu"));
        QCOMPARE(backend.submissions[0].slurm.time, std::string("02:00:00"));
        QCOMPARE(backend.submissions[0].slurm.gpusPerTask, 1);
        QCOMPARE(backend.submissions[0].slurm.maxParallel, 4LL);
        QTRY_COMPARE(submitted.count(), 1);
        QCOMPARE(submitted[0][0].toString(), QString("job-1"));

        // An audit: the dialog's array size (even), the Audit dialog's choices.
        ClusterRunDialog audit("the audit", 400);
        audit.unitsBox()->setValue(16);
        RunAction a;
        a.kind = RunKind::Audit;
        a.parameters.reproducible = false;  // an audit is seeded by its own seed: no panel requirement
        a.audit.task = "ac";
        a.audit.runs = 400;
        a.cluster = audit.submission();
        auto auditStages = runs.planAction(a);
        QVERIFY2(auditStages, auditStages ? "" : auditStages.error().message.c_str());
        QVERIFY(!auditStages->front().work(dpmix::CancellationToken{}, {}));
        QCOMPARE(backend.audits.size(), std::size_t(1));
        QCOMPARE(backend.audits[0].runs, 400LL);
        QCOMPARE(backend.submissions[1].auditUnits, 16LL);
    }

    // Compare with baselines may run each DP-SGD fine-tuning on several Slurm tasks (docs/CLUSTER.md,
    // "Ranks"); Run DP-MixMin fine-tunes nothing and a sweep runs one process per task, so their
    // submissions carry one rank whatever the box held.
    void theRanksRowReachesTheSubmissionOnlyForCompare() {
        ClusterRunDialog dialog("the study");
        QSpinBox* ranks = dialog.ranksBox();
        QVERIFY(ranks);
        QCOMPARE(ranks->maximum(), 64);
        QVERIFY(dialog.studyKind() == RunKind::DpMixMin);
        QVERIFY(!ranks->isEnabled());
        QCOMPARE(dialog.submission().slurm.ranks, 1);
        dialog.kindBox()->setCurrentIndex(dialog.kindBox()->findData(static_cast<int>(RunKind::CompareBaselines)));
        QVERIFY(ranks->isEnabled());
        ranks->setValue(4);
        QCOMPARE(dialog.submission().slurm.ranks, 4);
        dialog.kindBox()->setCurrentIndex(dialog.kindBox()->findData(static_cast<int>(RunKind::DpMixMin)));
        QCOMPARE(dialog.submission().slurm.ranks, 1);

        ClusterRunDialog sweep("the sweep");
        sweep.kindBox()->setCurrentIndex(sweep.kindBox()->findData(static_cast<int>(RunKind::CompareBaselines)));
        sweep.ranksBox()->setValue(3);
        sweep.hideStudyKind();
        QCOMPARE(sweep.submission().slurm.ranks, 1);
    }

    void theRunDialogsOfferTheCluster() {
        AuditDialog audit({"ac"});
        audit.offerCluster();
        QVERIFY(audit.clusterButton()->isEnabled());  // the mixture step
        audit.mechanismBox()->setCurrentIndex(2);     // DP-SGD fine-tuning: runs here
        QVERIFY(!audit.clusterButton()->isEnabled());
        audit.mechanismBox()->setCurrentIndex(0);
        audit.clusterButton()->click();
        QVERIFY(audit.runsOnCluster());
        QCOMPARE(audit.result(), int(QDialog::Accepted));

        EpsilonSweepDialog sweep;
        sweep.offerCluster("sbatch is not on PATH");
        QVERIFY(!sweep.clusterButton()->isEnabled());
        QCOMPARE(sweep.clusterButton()->toolTip(), QString("sbatch is not on PATH"));
        EpsilonSweepDialog offered;
        offered.offerCluster();
        offered.epsilonEdit()->setText("0.5, 2");
        QVERIFY(offered.clusterButton()->isEnabled());
        offered.epsilonEdit()->setText("0.5, x");  // invalid: neither OK nor the cluster
        QVERIFY(!offered.clusterButton()->isEnabled());
    }

    void theWindowOffersTheClusterAndMergesAFinishedJobAsAStage() {
        const auto generated = testing::generateProject(dir_.filePath("window.dpmix"));
        FakeClusterBackend backend;
        backend.cannotSubmit = "sbatch is not on PATH: this host cannot submit to Slurm";
        testing::MemoryProjectStore store;
        store.files.insert(generated.path, dpmix::widgets::RunParameters{});
        EngineRunController runs([](auto&, auto&, auto&, auto&, auto&) -> dpmix::Status { return std::nullopt; });
        runs.setClusterBackend(&backend);
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.cluster = &backend;
        MainWindow w(services);
        QCOMPARE(w.openFile(generated.path), QString());
        QVERIFY(clusterJobsView(w));
        QAction* cluster = w.runActions()->clusterAction();
        QVERIFY(!cluster->isEnabled());
        QVERIFY(cluster->toolTip().contains("sbatch is not on PATH"));
        {
            QMutexLocker lock(&backend.mutex);
            backend.cannotSubmit.clear();
            backend.jobs = {jobWith("job-h", {"done", "done"})};
        }
        w.runActions()->updateEnabled();
        QCOMPARE(cluster->isEnabled(), runAction(w)->isEnabled());
        clusterJobsView(w)->refresh();
        // The finished job is stored through a stage of the Jobs dock, and shown as stored after.
        QTRY_VERIFY_WITH_TIMEOUT(!backend.merged.empty(), 10000);
        QCOMPARE(backend.merged.front(), std::string("job-h"));
        QTRY_VERIFY_WITH_TIMEOUT(clusterJobsView(w)->tree()->topLevelItemCount() == 1 &&
                                     clusterJobsView(w)->tree()->topLevelItem(0)->text(7) == "runs from 7",
                                 10000);
        QTRY_VERIFY(logView(w)->toPlainText().contains("Cluster job job-h: stored as run 7"));
        QCOMPARE(backend.merged.size(), std::size_t(1));
    }
};

QTEST_MAIN(TestClusterJobsView)
#include "tst_cluster_jobs_view.moc"
