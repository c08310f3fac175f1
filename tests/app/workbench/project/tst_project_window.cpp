// The window over a real project file (generated, no training): the tree lists sources,
// tasks and runs; the panel takes the spec's values; read-only disables running and saving
// and says so in the title; Run goes through EngineRunController to an injected study
// function on a worker thread, which Cancel stops, and the results are reread afterwards.
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/project/project_paths.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "engine/project/spec_json.h"
#include "tests/app/workbench/generated_project.h"
#include "widgets/job_list_widget.h"
#include "widgets/parameter_panel.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>

#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "widgets/chart_widget.h"
#include "widgets/log_slider_spin_box.h"
#include "widgets/parameter_panel.h"

#include <atomic>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

namespace {
dpmix::Result<dpmix::project::SourceFacts> noData(const dpmix::data::SourceSpec& spec) {
    return dpmix::Error{"no data in this test: " + spec.name};
}

QTreeWidgetItem* group(QTreeWidget* tree, const QString& prefix) {
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->text(0).startsWith(prefix)) return tree->topLevelItem(i);
    return nullptr;
}

/// Stands in for the study runner: records what it was asked and where it ran, reports
/// progress until cancelled, then stores a cancelled run as the real runner would.
struct FakeStudy {
    std::atomic<bool> ranOffGuiThread{false};
    std::atomic<int> calls{0};
    StudyRequest lastRequest;
    QThread* guiThread = nullptr;

    StudyFunction function() {
        return [this](dpmix::project::ProjectFile& file, const StudyRequest& request,
                      const dpmix::ProgressCallback& progress, const dpmix::CancellationToken& cancel,
                      const StudyLog& log) -> std::optional<dpmix::Error> {
            ++calls;
            lastRequest = request;
            ranOffGuiThread = QThread::currentThread() != guiThread;
            const long long id = file.addRun({"dp-mixmin", "ac", request.epsilons.front(), 7, "{}"}).value();
            (void)file.setRunStatus(id, dpmix::project::RunStatus::Running).value();
            log("fake study started");
            for (long long step = 0; !cancel.isCancelled(); ++step) {
                dpmix::report(progress, {"mixture", step % 100, 100, "fake step"});
                QThread::msleep(5);
            }
            (void)file.setRunStatus(id, dpmix::project::RunStatus::Cancelled, "cancelled by the user").value();
            return dpmix::Error{"cancelled"};
        };
    }
};
}  // namespace

class TstProjectWindow : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    testing::GeneratedProject generated_;
    EngineProjectStore store_{noData};
    FakeStudy study_;
    EngineRunController runs_{study_.function()};

    WorkbenchServices services() {
        return {&runs_, &store_, [] { return QStringLiteral("test"); }};
    }

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_project_window");
        study_.guiThread = QThread::currentThread();
        generated_ = testing::generateProject(dir_.path() + "/study.dpmix");
    }

    void treeAndPanelShowTheProject() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        QTreeWidget* tree = projectTree(w);
        QTreeWidgetItem* sources = group(tree, "Public sources");
        QVERIFY(sources);
        QCOMPARE(sources->text(0), QString("Public sources (k = 2 components)"));
        QCOMPARE(sources->childCount(), 1);
        QVERIFY2(sources->child(0)->text(0).startsWith("public-images — 60 examples, 4 classes"),
                 qPrintable(sources->child(0)->text(0)));
        QVERIFY(sources->child(0)->toolTip(0).contains(QString(64, 'a')));  // content hash
        // A row cut off at the dock's width is whole in its tooltip.
        QVERIFY(sources->child(0)->toolTip(0).startsWith(sources->child(0)->text(0) + "\n"));
        QCOMPARE(tree->textElideMode(), Qt::ElideMiddle);
        QTreeWidgetItem* sensitive = group(tree, "Sensitive data");
        QVERIFY(sensitive->child(0)->text(0).startsWith("private-images — 40 examples"));
        QTreeWidgetItem* tasks = group(tree, "Tasks");
        QCOMPARE(tasks->childCount(), 3);  // ab, cd public; ac sensitive
        QTreeWidgetItem* runs = group(tree, "Runs");
        QCOMPARE(runs->childCount(), 9);
        bool sawDp = false;
        for (int i = 0; i < runs->childCount(); ++i)
            sawDp = sawDp || runs->child(i)->text(0).contains("DP-MixMin · ac · ε = 2 · seed 0 — done");
        QVERIFY(sawDp);
        // The spec's first ε, its ρ and seeds, and n = the 80% training share of the 40 sensitive examples.
        QCOMPARE(w.document()->values().epsilon, 1.0);
        QCOMPARE(w.document()->values().rho, 0.1);
        QCOMPARE(w.document()->values().seeds, QString("0, 1"));
        QCOMPARE(w.document()->values().sensitiveCount, qint64(32));
        // The result tabs exist and can be brought forward by name.
        for (const char* view : {"lambda", "ledger", "trajectory", "tradeoff"}) QVERIFY(w.showView(view));
        QVERIFY(w.findChild<QWidget*>("lambdaView"));
        QVERIFY(!w.windowTitle().contains("read-only"));
        QTRY_VERIFY(w.calculationsIdle());
        QTRY_VERIFY(runAction(w)->isEnabled());
    }

    void anImageStudysTabsFitTheWindowAndNameThemselves() {
        // 10 tabs used to overflow into scroll arrows at 1440 × 900 ("Per-class AU…" cut off), and an
        // image study showed an empty Perplexity tab.
        MainWindow w(services());
        w.resize(1440, 900);
        w.show();
        QCOMPARE(w.openFile(generated_.path), QString());
        QTabWidget* tabs = analysisTabs(w);
        QTRY_VERIFY(tabs->isVisible());
        QVERIFY(!w.findChild<QWidget*>("perplexityView"));  // an image study without perplexity curves
        QVERIFY(w.findChild<QWidget*>("aucView"));
        QStringList titles;
        for (int i = 0; i < tabs->count(); ++i) {
            titles << tabs->tabText(i);
            QVERIFY2(!tabs->tabToolTip(i).isEmpty(), qPrintable(tabs->tabText(i)));  // the full title
        }
        QVERIFY2(tabs->tabBar()->sizeHint().width() <= tabs->width(),
                 qPrintable(QString("%1 > %2: %3")
                                .arg(tabs->tabBar()->sizeHint().width())
                                .arg(tabs->width())
                                .arg(titles.join(" | "))));
        QCOMPARE(tabs->tabToolTip(tabs->indexOf(w.findChild<QWidget*>("aucView"))), QString("Per-class AUC"));
    }

    // Project dialogs start where projects live, not in the patient-data folder a source dialog
    // visited last; a new study is proposed under its own name, and the name typed into a Save
    // that failed is proposed again (docs/WORKBENCH.md, "The window").
    void projectDialogsStartWhereProjectsLive() {
        QTemporaryDir dir;
        const QString recent = dir.path() + "/old.dpmix";
        QFile file(recent);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const QString folder = QFileInfo(recent).absolutePath();
        QCOMPARE(projectDialogFolder({dir.path() + "/gone.dpmix", recent}), folder);  // the first that exists
        QCOMPARE(proposedProjectPath({}, "clinic x-ray", {recent}), QDir(folder).filePath("clinic x-ray.dpmix"));
        QCOMPARE(proposedProjectPath({}, "a/b:c", {recent}), QDir(folder).filePath("a-b-c.dpmix"));
        QCOMPARE(proposedProjectPath({}, " ", {recent}), QDir(folder).filePath("study.dpmix"));
        QCOMPARE(proposedProjectPath("/elsewhere/typed.dpmix", "clinic", {recent}), QString("/elsewhere/typed.dpmix"));
        QVERIFY(QFileInfo(projectDialogFolder({})).isDir());  // documents, else home
    }

    // Opening another project leaves the previous one's finished jobs behind; a job still running
    // keeps its row (and its Cancel) until it ends (docs/WORKBENCH.md, "The window", Jobs dock).
    void openingAnotherProjectClearsTheFinishedJobs() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        auto* jobs = w.findChild<dpmix::widgets::JobListWidget*>("jobList");
        QVERIFY(jobs);
        jobs->addJob(901, "an earlier run");
        jobs->setFinished(901, dpmix::widgets::JobState::Succeeded, "done");
        jobs->addJob(902, "still running");
        QCOMPARE(w.openFile(generated_.path), QString());  // the same project again: its history stays
        QVERIFY(jobs->rowOf(901) >= 0);
        const QString other = dir_.path() + "/other-study.dpmix";
        testing::generateProject(other);
        QCOMPARE(w.openFile(other), QString());
        QCOMPARE(jobs->rowOf(901), -1);
        QVERIFY(jobs->rowOf(902) >= 0);
    }

    void readOnlyDisablesRunningAndSaysSo() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path, true), QString());
        QVERIFY2(w.windowTitle().contains("read-only"), qPrintable(w.windowTitle()));
        QTRY_VERIFY(w.calculationsIdle());
        QTest::qWait(50);
        QVERIFY(!runAction(w)->isEnabled());
        QVERIFY(!parameterPanel(w)->runButton()->isEnabled());
        const int before = study_.calls;
        w.requestRun();
        QCOMPARE(jobRunner(w)->runningCount(), 0);
        QCOMPARE(study_.calls.load(), before);
        QVERIFY(w.saveTo(generated_.path).contains("read-only"));
        QVERIFY(runs_.planRun(w.document()->values()).error().message.find("read-only") != std::string::npos);
    }

    void saveStoresTheWorkingSettingsInTheProject() {
        // Save means save: what the user set is in the file, and reopening shows it — the
        // mixture stage and the pretraining and fine-tuning values alike. (It used to refuse:
        // "a .dpmix project keeps the parameters of each run with that run".)
        const QString copy = dir_.path() + "/saved-settings.dpmix";
        QVERIFY(QFile::copy(generated_.path, copy));
        {
            MainWindow w(services());
            QCOMPARE(w.openFile(copy), QString());
            QVERIFY(w.document()->values().epsilon != 3.5);
            parameterPanel(w)->epsilonEditor()->spinBox()->setValue(3.5);
            auto* steps = parameterPanel(w)->findChild<QSpinBox*>("editor_finetune-steps");
            QVERIFY(steps);
            steps->setValue(123);
            parameterPanel(w)->seedsEditor()->setText("4, 5");
            QTest::keyClick(parameterPanel(w)->seedsEditor(), Qt::Key_6);  // an edit as typed: "4, 56"
            QCOMPARE(w.document()->values().finetuneSteps, 123);
            QVERIFY(w.isWindowModified());
            QCOMPARE(w.saveTo(copy), QString());
            QVERIFY(!w.isWindowModified());
        }
        MainWindow reopened(services());
        QCOMPARE(reopened.openFile(copy), QString());
        QCOMPARE(reopened.document()->values().epsilon, 3.5);
        QCOMPARE(reopened.document()->values().finetuneSteps, 123);
        QCOMPARE(reopened.document()->values().seeds, QString("4, 56"));
        QCOMPARE(reopened.document()->values().sensitiveCount, qint64(32));  // n follows the data, not the file
        QVERIFY(!reopened.isWindowModified());
        // The spec's own copy (the generated project) still opens with the spec's values.
        MainWindow other(services());
        QCOMPARE(other.openFile(generated_.path), QString());
        QCOMPARE(other.document()->values().epsilon, 1.0);
        QCOMPARE(other.document()->values().finetuneSteps, 1000);
    }

    void theRhoGuidanceFollowsTheStudyAndTheBudget() {
        // k = 2 components, n = 32, ε = 1 (the spec's): balance n = 2·ln(1e5)/1 = 23.0 → ρ ≈ 0.72.
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        QTRY_VERIFY(w.calculationsIdle());
        const QString first = parameterPanel(w)->rhoGuidance();
        QVERIFY2(
            first.contains("k = 2") && first.contains("≈ 0.72 (split A of ≈ 23)") && first.contains("privacy-limited"),
            qPrintable(first));
        w.document()->edit(dpmix::widgets::ParameterField::Epsilon, 10.0);  // n = 0.23: split A is past it
        QTRY_VERIFY(parameterPanel(w)->rhoGuidance().contains("statistics-limited"));
    }

    void pretrainingAndFineTuningSettingsAreUndoableEdits() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        auto* batch = parameterPanel(w)->findChild<QSpinBox*>("editor_finetune-batch");
        auto* lr = parameterPanel(w)->findChild<QDoubleSpinBox*>("editor_pretrain-lr");
        QVERIFY(batch && lr);
        QVERIFY(batch->isVisibleTo(parameterPanel(w)) && batch->isEnabled());
        const int before = w.document()->values().finetuneBatch;
        batch->setValue(before + 7);
        lr->setValue(0.25);
        QCOMPARE(w.document()->values().finetuneBatch, before + 7);
        QCOMPARE(w.document()->values().pretrainLearningRate, 0.25);
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->values().pretrainLearningRate, 0.1);
        QCOMPARE(lr->value(), 0.1);  // the panel follows the document
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->values().finetuneBatch, before);
        QCOMPARE(batch->value(), before);
    }

    void plotExportsProposeTheStudyAndViewAndSayWhereTheyWent() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        QVERIFY(w.showView("lambda"));
        auto* view = w.findChild<QWidget*>("lambdaView");
        QVERIFY(view);
        auto* chart = view->findChild<dpmix::widgets::ChartWidget*>();
        QVERIFY(chart);
        QCOMPARE(chart->exportName(), QFileInfo(generated_.path).completeBaseName() + "-lambda");
        const QString path = dir_.path() + "/exported.png";
        QCOMPARE(chart->exportTo(path, dpmix::widgets::ExportFormat::Png), QString());
        QVERIFY2(w.statusBar()->currentMessage().contains("Plot saved to " + path),
                 qPrintable(w.statusBar()->currentMessage()));
    }

    void readOnlyLocksEveryEditorAndNeverAsksToSave() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path, true), QString());
        QTRY_VERIFY(w.calculationsIdle());
        auto* panel = parameterPanel(w);
        QVERIFY(!panel->isEditable());
        for (QWidget* editor : std::initializer_list<QWidget*>{
                 panel->epsilonEditor(), panel->deltaEditor(), panel->countEditor(), panel->rhoSlider(),
                 panel->rhoEditor(), panel->seedsEditor(), panel->compositionEditor(), panel->accountantEditor(),
                 panel->clipEditor(), panel->batchEditor(), panel->learningRateEditor(), panel->stepsEditor()})
            QVERIFY2(!editor->isEnabled(), qPrintable(editor->objectName() + " " + editor->metaObject()->className()));
        // Typing into a locked field changes nothing: no "*", and quitting closes without a prompt.
        QTest::keyClicks(panel->seedsEditor(), "7");
        QVERIFY(w.document()->undoStack()->isClean());
        QVERIFY(!w.isWindowModified());
        w.show();
        QVERIFY(w.close());  // a Save/Discard/Cancel prompt would block here (and it used to cancel the quit)
        // Opened for writing, the same panel is editable again.
        MainWindow writable(services());
        QCOMPARE(writable.openFile(generated_.path), QString());
        QVERIFY(parameterPanel(writable)->isEditable());
        QVERIFY(parameterPanel(writable)->seedsEditor()->isEnabled());
    }

    void newFromSpecMakesTheProjectNextToIt() {
        // The summariser stands in for the data layer: it reports the tiny facts by role.
        EngineProjectStore store([](const dpmix::data::SourceSpec& spec) -> dpmix::Result<dpmix::project::SourceFacts> {
            const auto facts = dpmix::project::testing::tinyFacts();
            return spec.name == "public-images" ? facts[0] : facts[1];
        });
        MainWindow w({&runs_, &store, [] { return QStringLiteral("test"); }});
        const QString notSpec = dir_.path() + "/notes.txt";
        QVERIFY(w.newFromSpec(notSpec).contains("a spec must be a .json file"));
        QVERIFY(!QFile::exists(dir_.path() + "/notes.dpmix"));

        dpmix::project::ProjectSpec spec = dpmix::project::testing::tinySpec();
        spec.mixture.batch = 2;
        // The spec's paths must exist (the summariser above never reads them).
        QVERIFY(QDir(dir_.path()).mkpath("public") && QDir(dir_.path()).mkpath("private"));
        for (const char* name : {"public/images.idx", "public/labels.idx", "private/images.idx"}) {
            QFile data(dir_.path() + "/" + name);
            QVERIFY(data.open(QIODevice::WriteOnly));
        }
        const QString specPath = dir_.path() + "/fresh.json";
        QFile file(specPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(dpmix::project::projectSpecToJson(spec)));
        file.close();
        QCOMPARE(w.newFromSpec(specPath), QString());
        QCOMPARE(w.currentFile(), dir_.path() + "/fresh.dpmix");
        QVERIFY(QFile::exists(dir_.path() + "/fresh.dpmix"));
        QCOMPARE(group(projectTree(w), "Public sources")->child(0)->text(0).left(13), QString("public-images"));
        QCOMPARE(group(projectTree(w), "Runs")->text(0), QString("Runs (0)"));
    }

    void controllerRefusesWithoutAProject() {
        EngineRunController runs(study_.function());
        auto plan = runs.planRun({});
        QVERIFY(!plan);
        QVERIFY(plan.error().message.find("No project is open") != std::string::npos);
    }

    void runStartsOnAWorkerThreadCancelsAndRefreshes() {
        const QString copy = dir_.path() + "/run.dpmix";
        testing::generateProject(copy);
        MainWindow w(services());
        QCOMPARE(w.openFile(copy), QString());
        QTRY_VERIFY(runAction(w)->isEnabled());
        w.requestRun();
        QCOMPARE(jobRunner(w)->runningCount(), 1);
        QTRY_VERIFY(logView(w)->toPlainText().contains("fake study started"));
        QVERIFY(study_.ranOffGuiThread);
        QCOMPARE(study_.lastRequest.epsilons, std::vector<double>({1.0}));
        QCOMPARE(study_.lastRequest.rho, 0.1);
        QCOMPARE(study_.lastRequest.seeds, std::vector<long long>({0, 1}));
        QCOMPARE(study_.lastRequest.stages, std::vector<std::string>({"proxies", "mixture"}));
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        jobRunner(w)->cancelAll();
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished[0][1].value<JobOutcome>(), JobOutcome::Cancelled);
        // The window reread the project: the new run is listed as cancelled.
        QTreeWidgetItem* runs = group(projectTree(w), "Runs");
        QCOMPARE(runs->childCount(), 10);
        QVERIFY2(runs->child(9)->text(0).endsWith("— cancelled"), qPrintable(runs->child(9)->text(0)));
    }
};

QTEST_MAIN(TstProjectWindow)
#include "tst_project_window.moc"
