// The Run menu's actions, offscreen: Compare with baselines, ε sweep and Audit are background
// jobs (stage, progress, elapsed, Cancel in the jobs dock) carrying the panel's values,
// Advanced ones included; they are off while the spec is invalid and in read-only mode; their
// dialogs validate in place; starting a run says that runs cannot be undone, and Undo indeed
// leaves the run alone.
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/audit_dialog.h"
#include "app/workbench/runs/epsilon_sweep_dialog.h"
#include "app/workbench/runs/run_requests.h"
#include "app/workbench/runs/stage_queue.h"
#include "engine/methods/method_plan.h"
#include "tests/app/workbench/fake_backends.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "widgets/job_list_widget.h"
#include "widgets/parameter_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>
#include <QtTest>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using dpmix::widgets::ParameterField;

namespace {
/// Records every action it is asked to plan and answers with one stage that runs until cancelled.
class RecordingController : public RunController {
public:
    dpmix::Result<QList<StageJob>> planRun(const dpmix::widgets::RunParameters& p) override {
        RunAction a;
        a.parameters = p;
        return planAction(a);
    }
    dpmix::Result<QList<StageJob>> planAction(const RunAction& a) override {
        actions.push_back(a);
        StageJob job{
            runKindLabel(a.kind) + QStringLiteral(" (fake)"),
            [](const dpmix::CancellationToken& token, const dpmix::ProgressCallback& progress) -> dpmix::Status {
                for (long long i = 0;; ++i) {
                    dpmix::throwIfCancelled(token);
                    dpmix::report(progress, {"stage", 1 + i % 99, 100, "fake step"});
                    QThread::msleep(5);
                }
            }};
        return QList<StageJob>{job};
    }
    std::vector<RunAction> actions;
};

QMenu* menuNamed(QMainWindow& w, const QString& title) {
    for (QAction* a : w.menuBar()->actions())
        if (a->text() == title) return a->menu();
    return nullptr;
}
}  // namespace

class TstRunActions : public QObject {
    Q_OBJECT

    testing::MemoryProjectStore store_;
    RecordingController runs_;

    WorkbenchServices services() {
        return {&runs_, &store_, [] { return QStringLiteral("test"); }};
    }

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_run_actions");
        store_.files.insert("/tmp/study.dpmix", dpmix::widgets::RunParameters{});
    }

    void actionsAreInTheRunMenuTheToolbarAndTheFileMenu() {
        MainWindow w(services());
        RunActions* actions = w.runActions();
        QVERIFY(actions);
        QMenu* run = menuNamed(w, "&Run");
        QVERIFY(run);
        for (QAction* a :
             {actions->compareAction(), actions->sweepAction(), actions->auditAction(), actions->compareRunsAction()})
            QVERIFY2(run->actions().contains(a), qPrintable(a->text()));
        QCOMPARE(run->actions().first(), runAction(w));  // Run DP-MixMin stays first
        for (QAction* a : {runAction(w), actions->compareAction(), actions->sweepAction(), actions->auditAction()})
            QVERIFY(actions->toolBar()->actions().contains(a));
        QVERIFY(menuNamed(w, "&File")->actions().contains(actions->exportReportAction()));
        // Every action is reachable from the keyboard.
        for (QAction* a :
             {actions->compareAction(), actions->sweepAction(), actions->auditAction(), actions->compareRunsAction()})
            QVERIFY(!a->shortcut().isEmpty());
    }

    void actionsFollowValidationAndReadOnly() {
        MainWindow w(services());
        RunActions* actions = w.runActions();
        QTRY_VERIFY(runAction(w)->isEnabled());
        QVERIFY(actions->compareAction()->isEnabled() && actions->sweepAction()->isEnabled() &&
                actions->auditAction()->isEnabled());
        const auto before = runs_.actions.size();

        w.document()->edit(ParameterField::Epsilon, 0.0);  // ε must be > 0
        QTRY_VERIFY(!runAction(w)->isEnabled());
        QVERIFY(!actions->compareAction()->isEnabled() && !actions->sweepAction()->isEnabled() &&
                !actions->auditAction()->isEnabled());
        QVERIFY(actions->startCompareWithBaselines().contains("Fix the highlighted parameters"));
        QVERIFY(actions->startEpsilonSweep({.epsilons = {1, 2}, .fullPipeline = false})
                    .contains("Fix the highlighted parameters"));
        QCOMPARE(runs_.actions.size(), before);
        QCOMPARE(jobRunner(w)->runningCount(), 0);
        w.document()->edit(ParameterField::Epsilon, 2.0);
        QTRY_VERIFY(actions->compareAction()->isEnabled());

        QCOMPARE(w.openFile("/tmp/study.dpmix", true), QString());
        QTRY_VERIFY(w.calculationsIdle());
        QTest::qWait(50);
        QVERIFY(!actions->compareAction()->isEnabled() && !actions->sweepAction()->isEnabled() &&
                !actions->auditAction()->isEnabled());
        QVERIFY(actions->startCompareWithBaselines().contains("read-only"));
        QVERIFY(actions->startAudit({"ac", false, 10, false, 0}).contains("read-only"));
        QVERIFY(actions->rerun(1).contains("read-only"));
        QCOMPARE(runs_.actions.size(), before);
        QCOMPARE(jobRunner(w)->runningCount(), 0);
    }

    void compareIsABackgroundJobWithTheAdvancedValues() {
        MainWindow w(services());
        w.document()->edit(ParameterField::ClipNorm, 7.0);
        w.document()->edit(ParameterField::Steps, 30);
        QTRY_VERIFY(w.runActions()->compareAction()->isEnabled());
        QSignalSpy started(jobRunner(w), &JobRunner::started);
        w.runActions()->compareAction()->trigger();
        QCOMPARE(started.count(), 1);
        const RunAction& asked = runs_.actions.back();
        QCOMPARE(asked.kind, RunKind::CompareBaselines);
        QCOMPARE(asked.parameters.clipNorm, 7.0);
        QCOMPARE(asked.parameters.steps, 30);
        const int job = started[0][0].toInt();
        QVERIFY(started[0][1].toString().contains("Compare with baselines"));
        auto* jobs = jobList(w);
        QCOMPARE(jobs->rowCount(), 1);
        QTRY_VERIFY(jobs->progressBar(job)->value() > 0);
        QTRY_VERIFY(!jobs->elapsedText(job).isEmpty());
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        QElapsedTimer clock;
        clock.start();
        jobs->cancelButton(job)->click();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 1000);
        QVERIFY(clock.elapsed() < 1000);
        QCOMPARE(finished[0][1].value<JobOutcome>(), JobOutcome::Cancelled);
    }

    void aFineTuningBatchLargerThanSplitBStopsTheRunsThatFineTuneBeforeAJobStarts() {
        // Found only after minutes of pretraining before; now the panel says it while typing and
        // the actions that fine-tune refuse at once. Mixture learning alone still runs.
        MainWindow w(services());
        w.document()->edit(ParameterField::SensitiveCount, static_cast<qint64>(1000));
        w.document()->edit(ParameterField::Rho, 0.5);
        w.document()->edit(ParameterField::BatchSize, 100);
        w.document()->edit(ParameterField::FinetuneBatch, 600);
        QTRY_VERIFY(w.calculationsIdle());
        QTRY_VERIFY(
            parameterPanel(w)->messageFor(ParameterField::FinetuneBatch).contains("larger than split B (n_B = 500)"));
        const auto before = runs_.actions.size();
        QCOMPARE(
            w.runActions()->startCompareWithBaselines(),
            QString("Not started: fine-tuning batch = 600 is larger than split B (n_B = 500): expected batch <= n_B; "
                    "lower the batch, or lower ρ or add data."));
        QVERIFY(w.runActions()
                    ->startEpsilonSweep({.epsilons = {1, 2}, .fullPipeline = true})
                    .startsWith("Not started: fine-tuning batch = 600"));
        QCOMPARE(runs_.actions.size(), before);
        QCOMPARE(jobRunner(w)->runningCount(), 0);
        QCOMPARE(w.runActions()->startEpsilonSweep({.epsilons = {1, 2}, .fullPipeline = false}),
                 QString());  // the mixture stage only
        QCOMPARE(runs_.actions.back().kind, RunKind::EpsilonSweep);
        stageQueue(w)->cancelAll();
        jobRunner(w)->waitForAll();
    }

    void sweepDialogValidatesInPlace() {
        EpsilonSweepDialog dialog;
        QPushButton* ok = dialog.buttons()->button(QDialogButtonBox::Ok);
        QVERIFY(ok->isEnabled());                         // the default list is valid
        QVERIFY(!dialog.fullPipelineBox()->isChecked());  // the mixture stage by default
        dialog.epsilonEdit()->setText("1, x");
        QVERIFY(!ok->isEnabled());
        QVERIFY2(dialog.errorLabel()->text().contains("'x'"), qPrintable(dialog.errorLabel()->text()));
        QVERIFY(dialog.epsilons().empty());
        dialog.epsilonEdit()->setText("4, 0.5");
        QVERIFY(ok->isEnabled());
        QVERIFY(dialog.errorLabel()->text().isEmpty());
        QCOMPARE(dialog.epsilons(), std::vector<double>({0.5, 4.0}));
        dialog.fullPipelineBox()->setChecked(true);

        MainWindow w(services());
        QTRY_VERIFY(w.runActions()->sweepAction()->isEnabled());
        QCOMPARE(w.runActions()->startEpsilonSweep(dialog.scope()), QString());
        const RunAction& asked = runs_.actions.back();
        QCOMPARE(asked.kind, RunKind::EpsilonSweep);
        QCOMPARE(asked.sweep.epsilons, std::vector<double>({0.5, 4.0}));
        QVERIFY(asked.sweep.fullPipeline);
        QCOMPARE(jobRunner(w)->runningCount(), 1);
        jobRunner(w)->cancelAll();
        jobRunner(w)->waitForAll();
    }

    // The teacher limits the sweep to one task and three methods in the dialog; unticking every
    // task (or, with the full pipeline, every method) says why OK is disabled (docs/WORKBENCH.md, "Run actions,
    // comparison, re-run, report", ε sweep).
    void sweepDialogChoosesTasksAndMethods() {
        EpsilonSweepDialog dialog({"warm clothing", "summer wear"});
        QPushButton* ok = dialog.buttons()->button(QDialogButtonBox::Ok);
        QCOMPARE(dialog.taskList()->count(), 2);
        QCOMPARE(dialog.methodList()->count(), static_cast<int>(dpmix::methods::allMethods().size()));
        QVERIFY(!dialog.methodList()->isEnabled());  // the mixture stage is DP-MixMin's alone
        QVERIFY(dialog.scope().tasks.empty());       // all ticked: every task
        dialog.taskList()->item(1)->setCheckState(Qt::Unchecked);
        QCOMPARE(dialog.scope().tasks, std::vector<std::string>({"warm clothing"}));
        dialog.taskList()->item(0)->setCheckState(Qt::Unchecked);
        QVERIFY(!ok->isEnabled());
        QVERIFY2(dialog.errorLabel()->text().contains("at least one task"), qPrintable(dialog.errorLabel()->text()));
        dialog.taskList()->item(0)->setCheckState(Qt::Checked);
        QVERIFY(ok->isEnabled());

        QVERIFY(!dialog.scope().trainingSteps);  // the mixture stage trains nothing
        dialog.fullPipelineBox()->setChecked(true);
        QVERIFY(dialog.methodList()->isEnabled());
        QVERIFY(dialog.scope().methods.empty());                                // all five
        QCOMPARE(dialog.scope().trainingSteps, std::optional<long long>(100));  // the teacher's short training
        dialog.shortTrainingBox()->setChecked(false);
        QVERIFY(!dialog.scope().trainingSteps);  // the panel's Advanced steps
        dialog.shortTrainingBox()->setChecked(true);
        for (int i = 0; i < dialog.methodList()->count(); ++i) {
            const QString name = dialog.methodList()->item(i)->data(Qt::UserRole).toString();
            const bool keep = name == "dp-mixmin" || name == "uniform" || name == "random-init";
            dialog.methodList()->item(i)->setCheckState(keep ? Qt::Checked : Qt::Unchecked);
        }
        QCOMPARE(dialog.scope().methods, std::vector<std::string>({"dp-mixmin", "uniform", "random-init"}));
        for (int i = 0; i < dialog.methodList()->count(); ++i)
            dialog.methodList()->item(i)->setCheckState(Qt::Unchecked);
        QVERIFY(!ok->isEnabled());
        QVERIFY2(dialog.errorLabel()->text().contains("at least one method"), qPrintable(dialog.errorLabel()->text()));
    }

    void auditDialogCollectsTheChoices() {
        AuditDialog none(QStringList{});
        QVERIFY(!none.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
        AuditDialog dialog({"ac", "bd"});
        QVERIFY(dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
        QCOMPARE(dialog.settings(), (AuditSettings{"ac", false, 2000, false, 0}));  // max-clip, R = 2000 by default
        dialog.canaryBox()->setCurrentIndex(1);                                     // max-clip at the quietest source
        QCOMPARE(dialog.settings(), (AuditSettings{"ac", false, 2000, false, 0, true}));
        dialog.taskBox()->setCurrentIndex(1);
        dialog.canaryBox()->setCurrentIndex(2);  // natural
        dialog.runsBox()->setValue(300);
        dialog.noNoiseBox()->setChecked(true);
        dialog.seedBox()->setValue(4);
        const AuditSettings chosen{"bd", true, 300, true, 4};
        QCOMPARE(dialog.settings(), chosen);
        // A fine-tuning mechanism brings its own canaries and drops the mixture's no-noise control.
        AuditDialog training({"ac"});
        training.mechanismBox()->setCurrentIndex(1);  // the Dirichlet mechanism
        QCOMPARE(training.canaryBox()->count(), 3);
        QVERIFY(training.noNoiseBox()->isHidden());
        training.canaryBox()->setCurrentIndex(1);  // gradient-aligned
        training.runsBox()->setValue(1000);
        AuditSettings dirichlet{"ac", false, 1000, false, 0};
        dirichlet.mechanism = "dirichlet";
        dirichlet.trainingCanary = "gradient-aligned";
        QCOMPARE(training.settings(), dirichlet);
        training.mechanismBox()->setCurrentIndex(0);  // back to the mixture step
        QCOMPARE(training.canaryBox()->count(), 3);
        QVERIFY(!training.noNoiseBox()->isHidden());
        QVERIFY(training.settings().mechanism.isEmpty());

        // A fine-tuning mechanism can be audited in one training of the study's own fine-tuning (docs/AUDIT.md, "The
        // one-run audit of a study's fine-tuning"); runs per world then do not apply, white-box canary gradients only
        // for DP-SGD and SGD.
        QVERIFY(training.oneRunBox()->isHidden());    // the mixture step: no one-run audit
        training.mechanismBox()->setCurrentIndex(2);  // DP-SGD
        QVERIFY(!training.oneRunBox()->isHidden());
        training.oneRunBox()->setChecked(true);
        QVERIFY(!training.runsBox()->isEnabled());
        training.whiteBoxBox()->setChecked(true);
        training.canariesBox()->setValue(500);
        AuditSettings oneRun = training.settings();
        QVERIFY(oneRun.oneRun && oneRun.whiteBox);
        QCOMPARE(oneRun.canaries, 500LL);
        QCOMPARE(oneRun.mechanism, QString("dp-sgd"));
        training.mechanismBox()->setCurrentIndex(1);  // the Dirichlet mechanism: no canary gradients
        QVERIFY(!training.whiteBoxBox()->isEnabled());
        QVERIFY(!training.settings().whiteBox);
        QVERIFY(training.settings().oneRun);
        const auto request = auditRequestFor(dpmix::widgets::RunParameters(), oneRun);
        QVERIFY(request.ok());
        QVERIFY(request->oneRun && request->whiteBox);
        QCOMPARE(request->canaries, 500LL);
        QCOMPARE(request->mechanism, std::string("dp-sgd"));

        MainWindow w(services());
        QTRY_VERIFY(w.runActions()->auditAction()->isEnabled());
        QCOMPARE(w.runActions()->startAudit(dialog.settings()), QString());
        QCOMPARE(runs_.actions.back().kind, RunKind::Audit);
        QCOMPARE(runs_.actions.back().audit, chosen);
        jobRunner(w)->cancelAll();
        jobRunner(w)->waitForAll();
    }

    void spentPrivacyIsNotUndoable() {
        MainWindow w(services());
        QTRY_VERIFY(runAction(w)->isEnabled());
        QUndoStack* undo = w.document()->undoStack();
        w.document()->edit(ParameterField::Rho, 0.2);
        QCOMPARE(undo->count(), 1);
        QTRY_VERIFY(runAction(w)->isEnabled());
        const auto asked = runs_.actions.size();
        QCOMPARE(w.runActions()->startCompareWithBaselines(), QString());
        QCOMPARE(jobRunner(w)->runningCount(), 1);
        // The UI says so, in the status bar and on the Undo action.
        QVERIFY2(w.statusBar()->currentMessage().contains("cannot be undone"),
                 qPrintable(w.statusBar()->currentMessage()));
        QAction* undoAction = nullptr;
        for (QAction* a : menuNamed(w, "&Edit")->actions())
            if (a->shortcut() == QKeySequence(QKeySequence::Undo)) undoAction = a;
        QVERIFY(undoAction);
        QVERIFY(undoAction->statusTip().contains("Undo reverts parameter edits only"));
        // The run is not on the undo stack, and undoing the edit leaves the run running.
        QCOMPARE(undo->count(), 1);
        undo->undo();
        QCOMPARE(w.document()->values().rho, 0.1);
        QCOMPARE(jobRunner(w)->runningCount(), 1);
        QCOMPARE(runs_.actions.size(), asked + 1);
        QVERIFY(!undo->canUndo());
        jobRunner(w)->cancelAll();
        jobRunner(w)->waitForAll();
    }

    void plainRunAlsoSaysItCannotBeUndone() {
        MainWindow w(services());
        QTRY_VERIFY(runAction(w)->isEnabled());
        runAction(w)->trigger();
        QCOMPARE(jobRunner(w)->runningCount(), 1);
        QVERIFY(w.statusBar()->currentMessage().contains("cannot be undone"));
        jobRunner(w)->cancelAll();
        jobRunner(w)->waitForAll();
    }
};

QTEST_MAIN(TstRunActions)
#include "tst_run_actions.moc"
