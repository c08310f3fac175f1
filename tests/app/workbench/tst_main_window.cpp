// The workbench window driven offscreen: typing ε updates σ, an invalid δ disables Run and
// says why, undo restores, the title marks unsaved changes, a job starts and cancels, the
// About box names the versions, window state is restored.
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/runs/compute_device_menu.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/prv_accountant.h"
#include "tests/app/workbench/fake_backends.h"
#include "tests/app/workbench/window_parts.h"
#include "widgets/job_list_widget.h"
#include "widgets/log_slider_spin_box.h"
#include "widgets/parameter_panel.h"
#include "widgets/privacy_calculator_panel.h"

#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using dpmix::widgets::JobState;
using dpmix::widgets::ParameterField;

class TstMainWindow : public QObject {
    Q_OBJECT

    testing::MemoryProjectStore store_;
    testing::EndlessStageController runs_;

    WorkbenchServices services() {
        return {&runs_, &store_, [] { return QStringLiteral("9.8.7-test"); }};
    }

    // The σ a new study's panel shows: its accountant is PRV (the default for new studies).
    static QString sigmaFor(double epsilon) {
        const auto c = dpmix::privacy::calibrateGaussianSigmaPrv(epsilon, 1e-5, 1000.0 / 8970.0, 100).value();
        return QString::number(c.sigma, 'g', 5);
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QCoreApplication::setOrganizationName("dpmix-tests");
        QCoreApplication::setApplicationName("tst_main_window");
        QSettings().clear();
    }

    void opensWithAllParts() {
        MainWindow w(services());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(projectTree(w)->topLevelItemCount(), 4);
        QCOMPARE(projectTree(w)->topLevelItem(0)->text(0), QString("Public sources"));
        QCOMPARE(projectTree(w)->topLevelItem(3)->text(0), QString("Runs"));
        QCOMPARE(analysisTabs(w)->tabText(0), QString("Calculator"));
        QVERIFY(w.findChild<QDockWidget*>("parametersDock"));
        QVERIFY(w.findChild<QDockWidget*>("jobsDock"));
        QVERIFY(w.windowTitle().startsWith("Untitled[*]"));
        QVERIFY(!w.isWindowModified());
        // The live calculator has produced the default σ, and Run is enabled.
        QTRY_VERIFY(parameterPanel(w)->privacySummary().contains(sigmaFor(2.0)));
        QTRY_VERIFY(parameterPanel(w)->runButton()->isEnabled());
        QVERIFY(w.close());
    }

    // Run ▸ Compute device is in the window's Run menu; without a GPU, CUDA cannot be chosen.
    void theRunMenuOffersTheComputeDevice() {
        MainWindow w(services());
        auto* menu = w.findChild<ComputeDeviceMenu*>("computeDeviceMenu");
        QVERIFY(menu);
        QCOMPARE(menu->title(), QString("Compute &device"));
        QVERIFY(!menu->findChild<QAction*>("device_cuda")->isEnabled());
        QVERIFY(menu->findChild<QAction*>("device_cpu")->isEnabled());
    }

    void typingEpsilonUpdatesSigma() {
        MainWindow w(services());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(parameterPanel(w)->privacySummary().contains(sigmaFor(2.0)));
        QDoubleSpinBox* spin = parameterPanel(w)->epsilonEditor()->spinBox();
        spin->setFocus();
        QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(spin, "5");
        QCOMPARE(w.document()->values().epsilon, 5.0);
        // Until the summary for ε = 5 is computed, Run waits (it would start with a stale plan).
        QVERIFY(!parameterPanel(w)->runButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(parameterPanel(w)->privacySummary().contains(sigmaFor(5.0)), 2000);
        QTRY_VERIFY(parameterPanel(w)->runButton()->isEnabled());
        QVERIFY(!parameterPanel(w)->isComputing());
        QVERIFY(sigmaFor(5.0) != sigmaFor(2.0));
        QVERIFY(w.isWindowModified());
        w.document()->undoStack()->setClean();
    }

    void invalidDeltaDisablesRunAndUndoRestores() {
        MainWindow w(services());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(parameterPanel(w)->runButton()->isEnabled());
        QLineEdit* delta = parameterPanel(w)->deltaEditor();
        delta->setFocus();
        delta->selectAll();
        QTest::keyClicks(delta, "2");
        QTRY_VERIFY(!parameterPanel(w)->runButton()->isEnabled());
        QTRY_COMPARE(parameterPanel(w)->messageFor(ParameterField::Delta),
                     QString("delta = 2 is out of range: expected a probability in (0, 1)"));
        QVERIFY(!parameterPanel(w)->runButton()->isEnabled());  // computed, and still off: δ is invalid
        QVERIFY(parameterPanel(w)->privacySummary().contains("Cannot compute"));
        QVERIFY(w.isWindowModified());
        // To look at the in-place message: DPMIX_TEST_SCREENSHOT_DIR=/tmp ctest -R tst_main_window
        if (const QString dir = qEnvironmentVariable("DPMIX_TEST_SCREENSHOT_DIR"); !dir.isEmpty())
            w.grab().save(dir + "/invalid-delta.png");
        QVERIFY(w.windowTitle().contains("[*]"));

        // Ctrl+Z (the Edit menu's shortcut) restores δ, the message goes, Run comes back.
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.document()->values().delta, QString("1e-5"));
        QCOMPARE(delta->text(), QString("1e-5"));
        QTRY_VERIFY(parameterPanel(w)->runButton()->isEnabled());
        // The error is gone; what stays is the warning that the paper's δ = 1e-5 is not well below
        // 1/n for n = 89,696 (a warning only: Run is enabled).
        QVERIFY2(
            parameterPanel(w)->messageFor(ParameterField::Delta).startsWith(QString("δ = 1e-5 is not well below 1/n")),
            qPrintable(parameterPanel(w)->messageFor(ParameterField::Delta)));
        QVERIFY(!w.isWindowModified());
    }

    void ctrlZInsideAFieldUndoesTheDocument() {
        MainWindow w(services());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.activateWindow();
        QLineEdit* seeds = parameterPanel(w)->seedsEditor();
        seeds->setFocus();
        seeds->end(false);
        QTest::keyClicks(seeds, ", 3");
        QCOMPARE(w.document()->values().seeds, QString("0, 1, 2, 3"));
        QCOMPARE(w.document()->undoStack()->count(), 1);  // three keystrokes, one undo step
        QTest::keyClick(seeds, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.document()->values().seeds, QString("0, 1, 2"));
        QCOMPARE(seeds->text(), QString("0, 1, 2"));
        QVERIFY(!w.isWindowModified());
    }

    void runStartsAJobAndCancelStopsIt() {
        MainWindow w(services());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(parameterPanel(w)->runButton()->isEnabled());
        QTest::mouseClick(parameterPanel(w)->runButton(), Qt::LeftButton);
        QCOMPARE(runs_.runs, 1);
        dpmix::widgets::JobListWidget* jobs = jobList(w);
        QTRY_COMPARE(jobs->rowCount(), 1);
        const int id = 1;
        QCOMPARE(jobs->state(id), JobState::Running);
        QTRY_VERIFY(jobs->statusText(id) == "fake step");
        QElapsedTimer clock;
        clock.start();
        QTest::mouseClick(jobs->cancelButton(id), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(jobs->state(id) == JobState::Cancelled, 1000);
        QVERIFY(clock.elapsed() < 1000);
        QCOMPARE(jobRunner(w)->runningCount(), 0);
    }

    void runIsRefusedWhileInvalid() {
        MainWindow w(services());
        const int before = runs_.runs;
        w.document()->edit(ParameterField::Steps, 0);
        w.requestRun();  // e.g. from the menu shortcut before the panel caught up
        QCOMPARE(runs_.runs, before);
        QCOMPARE(jobList(w)->rowCount(), 0);
        w.document()->undoStack()->setClean();
    }

    void calculatorShowsErrorsInPlace() {
        MainWindow w(services());
        w.show();
        auto* calc = calculatorPanel(w);
        QTRY_VERIFY(calc->epsilonOutputEnabled() && calc->epsilonText() != "—");
        calc->qEditor()->selectAll();
        QTest::keyClicks(calc->qEditor(), "1.5");
        QTRY_VERIFY(!calc->epsilonOutputEnabled());
        QCOMPARE(calc->epsilonError(), QString("q = 1.5 is out of range: expected a sampling rate in (0, 1]"));
        QVERIFY(!calc->sigmaOutputEnabled());
        QCOMPARE(calc->sigmaText(), QString("—"));
    }

    void saveOpenAndRecentFiles() {
        MainWindow w(services());
        w.document()->edit(ParameterField::Epsilon, 1.0);
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.saveTo("/tmp/p1.dpmix"), QString());
        QVERIFY(!w.isWindowModified());
        QVERIFY(w.windowTitle().startsWith("p1.dpmix[*]"));
        QCOMPARE(store_.files.value("/tmp/p1.dpmix").epsilon, 1.0);
        QCOMPARE(w.recentFiles().value(0), QString("/tmp/p1.dpmix"));

        // A failed save changes nothing: the title keeps "*", the store keeps the old file.
        w.document()->edit(ParameterField::Epsilon, 3.0);
        const QString error = w.saveTo("/tmp/readonly.dpmix");
        QVERIFY(error.contains("/tmp/readonly.dpmix"));
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.currentFile(), QString("/tmp/p1.dpmix"));

        MainWindow other(services());
        QCOMPARE(other.openFile("/tmp/p1.dpmix"), QString());
        QCOMPARE(other.document()->values().epsilon, 1.0);
        QVERIFY(!other.isWindowModified());
        QVERIFY(other.openFile("/tmp/none.dpmix").contains("no such project"));
        QCOMPARE(other.currentFile(), QString("/tmp/p1.dpmix"));
        w.document()->undoStack()->setClean();
    }

    void aboutNamesTheVersions() {
        MainWindow w(services());
        const AboutInfo info = w.aboutInfo();
        QCOMPARE(info.qtVersion, QString(qVersion()));
        QCOMPARE(info.torchVersion, QString("9.8.7-test"));
        QCOMPARE(info.schemaVersion, QString("test-schema-7"));
        const QString html = aboutHtml(info);
        QVERIFY(html.contains(qVersion()) && html.contains("9.8.7-test") && html.contains("test-schema-7"));
    }

    void shippedPlaceholdersSayWhatIsMissing() {
        UnavailableProjectStore store("2");
        QVERIFY(store.schemaVersion().startsWith("2 (opening and saving projects is not wired"));
        const QString path = QDir::temp().filePath("dpmix-placeholder-test.dpmix");
        QFile::remove(path);
        QVERIFY(QString::fromStdString(store.save(path, {})->message).contains(path));
        QVERIFY(!QFile::exists(path));  // nothing written
        QVERIFY(!store.open(path).ok());
        UnavailableRunController runs;
        const auto planned = runs.planRun({});
        QVERIFY(!planned.ok());
        QVERIFY(QString::fromStdString(planned.error().message).contains("engine/pipeline"));
    }

    void windowStateIsRestored() {
        {
            MainWindow w(services());
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.findChild<QDockWidget*>("jobsDock")->hide();
            QVERIFY(w.close());  // saves geometry and dock state
        }
        MainWindow again(services());
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(!again.findChild<QDockWidget*>("jobsDock")->isVisible());
        QVERIFY(again.findChild<QDockWidget*>("parametersDock")->isVisible());
    }

    void closingCancelsRunningJobs() {
        auto* w = new MainWindow(services());
        w->show();
        QTRY_VERIFY(parameterPanel(*w)->runButton()->isEnabled());
        w->requestRun();
        QTRY_COMPARE(jobRunner(*w)->runningCount(), 1);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(w->close());
        QCOMPARE(jobRunner(*w)->runningCount(), 0);
        QVERIFY(clock.elapsed() < 1000);
        delete w;
    }

    void cleanupTestCase() { QSettings().clear(); }
};

QTEST_MAIN(TstMainWindow)
#include "tst_main_window.moc"
