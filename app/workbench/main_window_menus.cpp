// The main window's docks, menus, saved window state and recent files (main_window.h).
#include "app/workbench/main_window.h"

#include "app/workbench/project/read_only_files.h"

#include "app/workbench/parameters/calculator_evaluation.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/parameters/rho_guidance_text.h"
#include "app/workbench/project/project_paths.h"
#include "app/workbench/project/project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/cluster_jobs_view.h"
#include "app/workbench/runs/compute_device_menu.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/latest_result_runner.h"
#include "app/workbench/runs/run_controller.h"
#include "app/workbench/runs/stage_queue.h"
#include "app/workbench/study/study_controller.h"
#include "app/workbench/views/private_set_view.h"
#include "app/workbench/views/result_data.h"
#include "engine/core/version.h"
#include "widgets/budget_meter.h"
#include "widgets/chart_widget.h"
#include "widgets/job_list_widget.h"
#include "widgets/parameter_panel.h"
#include "widgets/privacy_calculator_panel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTime>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QWhatsThis>

namespace dpmix::workbench {

namespace {
constexpr int kMaxRecentFiles = 8;
const char* const kRecentKey = "recentFiles";
const char* const kGeometryKey = "mainWindow/geometry";
const char* const kStateKey = "mainWindow/state";
const QString kProjectFilter = QStringLiteral("dpmix project (*.dpmix)");
const QString kSpecFilter = QStringLiteral("dpmix spec (*.json)");
}  // namespace

void MainWindow::buildDocks() {
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    auto* projectDock = new QDockWidget(tr("Project"), this);
    projectDock->setObjectName("projectDock");
    tree_->setHeaderHidden(true);
    populateTree();
    trustBanner_ = new QLabel;
    trustBanner_->setObjectName("trustBanner");
    trustBanner_->setWordWrap(true);
    trustBanner_->setTextFormat(Qt::RichText);
    trustBanner_->hide();
    auto* projectPane = new QWidget;
    auto* projectLayout = new QVBoxLayout(projectPane);
    projectLayout->setContentsMargins(0, 0, 0, 0);
    projectLayout->addWidget(trustBanner_);
    projectLayout->addWidget(tree_, 1);
    projectDock->setWidget(projectPane);
    projectDock->setMinimumWidth(200);
    addDockWidget(Qt::LeftDockWidgetArea, projectDock);

    auto* parameterDock = new QDockWidget(tr("Parameters"), this);
    parameterDock->setObjectName("parametersDock");
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The budget meter sits above the parameters: what the data has spent, next to what a run
    // would spend.
    auto* parameterPage = new QWidget;
    auto* parameterLayout = new QVBoxLayout(parameterPage);
    parameterLayout->setContentsMargins(6, 6, 6, 0);
    budgetMeter_->setObjectName("budgetMeter");
    parameterLayout->addWidget(budgetMeter_);
    parameterLayout->addWidget(parameters_, 1);
    scroll->setWidget(parameterPage);
    parameterDock->setWidget(scroll);
    parameterDock->setMinimumWidth(440);
    addDockWidget(Qt::RightDockWidgetArea, parameterDock);

    auto* jobsDock = new QDockWidget(tr("Jobs"), this);
    jobsDock->setObjectName("jobsDock");
    jobsDock->setWidget(jobs_);
    addDockWidget(Qt::BottomDockWidgetArea, jobsDock);

    auto* logDock = new QDockWidget(tr("Log"), this);
    logDock->setObjectName("logDock");
    log_ = new QPlainTextEdit;
    log_->setObjectName("logView");
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    log_->setPlaceholderText(tr("Messages of running studies appear here."));
    logDock->setWidget(log_);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    tabifyDockWidget(jobsDock, logDock);
    buildClusterDock(logDock);
    jobsDock->raise();
    resizeDocks({jobsDock}, {170}, Qt::Vertical);
    resizeDocks({projectDock, parameterDock}, {300, 460}, Qt::Horizontal);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* quit = buildFileMenu(file);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    undo->setStatusTip(spentPrivacyNotice());  // undo reverts spec edits, never a run
    undo->setToolTip(spentPrivacyNotice());
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* study = menuBar()->addMenu(tr("&Study"));
    study->addAction(study_->addPublicAction());
    study->addAction(study_->setSensitiveAction());
    study->addAction(study_->removeSelectedAction());
    addStudyActions(study);

    buildViewMenu();
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    buildRunMenu(run, file, quit);
    buildHelpMenu();
}

// File: new, open, export release, recent files, save, quit; returns Quit (the run actions'
// Export report… goes before it).
QAction* MainWindow::buildFileMenu(QMenu* file) {
    file->addAction(tr("&New"), QKeySequence::New, this, [this] {
        if (maybeSave()) newProject();
    });
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        if (maybeSave()) openWithDialog();
    });
    file->addAction(tr("New from &spec…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N), this, [this] {
        if (!maybeSave()) return;
        const QString spec = QFileDialog::getOpenFileName(this, tr("New project from spec"),
                                                          projectDialogFolder(recentFiles()), kSpecFilter);
        if (spec.isEmpty()) return;
        if (QString e = newFromSpec(spec); !e.isEmpty()) QMessageBox::warning(this, tr("New project from spec"), e);
    });
    file->addAction(tr("Open &read-only…"), this, [this] {
        if (!maybeSave()) return;
        const QString path = QFileDialog::getOpenFileName(this, tr("Open project read-only"),
                                                          projectDialogFolder(recentFiles()), kProjectFilter);
        if (path.isEmpty()) return;
        if (QString e = openFile(path, true); !e.isEmpty()) QMessageBox::warning(this, tr("Open project"), e);
    });
    exportReleaseAction_ = file->addAction(tr("Export &release…"), this, [this] { exportReleaseWithDialog(); });
    exportReleaseAction_->setObjectName("exportRelease");
    exportReleaseAction_->setStatusTip(
        tr("Write a new file with only the chosen DP runs' outputs and ledgers, to share "
           "outside the data owner's trust boundary"));
    exportReleaseAction_->setEnabled(false);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addSeparator();
    writeActions_ << file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { saveWithDialog(false); });
    writeActions_ << file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, [this] { saveWithDialog(true); });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setMenuRole(QAction::QuitRole);
    return quit;
}

void MainWindow::buildViewMenu() {
    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("Privacy &calculator"), this, [this] { showView("calculator"); });
    QAction* details = view->addAction(tr("Run &details"), this, [this] {
        if (!showView("run-details")) statusBar()->showMessage(tr("Open a project to see its runs' details."), 5000);
    });
    details->setObjectName("showRunDetails");
}

// Run: Run DP-MixMin (following the panel's Run button), the run actions, the compute device and
// the job list's housekeeping.
void MainWindow::buildRunMenu(QMenu* run, QMenu* file, QAction* quit) {
    runAction_ =
        run->addAction(tr("&Run DP-MixMin"), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::requestRun);
    runAction_->setObjectName("runDpMixMin");
    runAction_->setEnabled(false);
    // The menu item follows the panel's Run button, which follows validation and read-only.
    computingTimer_ = new QTimer(this);
    computingTimer_->setSingleShot(true);
    computingTimer_->setInterval(150);
    connect(computingTimer_, &QTimer::timeout, this, [this] {
        if (!planRunner_->isIdle()) parameters_->setComputing(true);
    });
    connect(planRunner_, &LatestResultRunner::applied, runAction_,
            [this] { runAction_->setEnabled(parameters_->runButton()->isEnabled()); });
    runActions_ = new RunActions(this, {runAction_, tree_, tabs_, services_.cluster}, services_.runs);
    runActions_->addToMenus(file, quit, run);
    run->addSeparator();
    run->addMenu(new ComputeDeviceMenu(services_.runs, services_.cudaAvailable && services_.cudaAvailable(), run));
    run->addAction(tr("&Cancel all jobs"), this, [this] { queue_->cancelAll(); });
    run->addAction(tr("C&lear finished jobs"), jobs_, &widgets::JobListWidget::clearFinished);
}

void MainWindow::buildHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* manual = help->addAction(tr("&Manual for this view"), this, [this] { showHelp(); });
    manual->setShortcut(QKeySequence::HelpContents);  // F1
    manual->setToolTip(tr("Open the manual at the section that explains the current view"));
    help->addAction(tr("&Glossary"), this, [this] { showHelp(HelpTopic{QStringLiteral("GLOSSARY.md"), {}}); });
    help->addAction(QWhatsThis::createAction(this));  // Shift+F1, then click a field
    QAction* regime = help->addAction(tr("Where public data &pays (regime map)…"), this, [this] { showRegimeMap(); });
    regime->setObjectName("showRegimeMap");
    regime->setStatusTip(
        tr("Where pretraining on privately chosen public data beat training from scratch and equal weights, by "
           "data set size and ε, on reference data"));
    help->addSeparator();
    QAction* about = help->addAction(tr("&About dpmix workbench"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::restoreWindowState() {
    QSettings settings;
    const QByteArray geometry = settings.value(kGeometryKey).toByteArray();
    if (geometry.isEmpty() || !restoreGeometry(geometry)) resize(1440, 900);
    restoreState(settings.value(kStateKey).toByteArray());
}

void MainWindow::saveWindowState() {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
}

QStringList MainWindow::recentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::rememberRecent(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles) files.removeLast();
    QSettings().setValue(kRecentKey, files);
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    recentMenu_->setToolTipsVisible(true);  // the full path of each file, on hover
    const QStringList files = recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction* action = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()),
                                                 this, [this, path] {
                                                     if (!maybeSave()) return;
                                                     if (QString e = openFile(path); !e.isEmpty())
                                                         QMessageBox::warning(this, tr("Open project"), e);
                                                 });
        action->setToolTip(path);
        action->setStatusTip(path);
    }
    if (files.isEmpty())
        recentMenu_->addAction(tr("(no recent projects)"))->setEnabled(false);
    else {
        recentMenu_->addSeparator();
        recentMenu_->addAction(tr("Clear list"), this, [] { QSettings().remove(kRecentKey); });
    }
}

void MainWindow::openWithDialog() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open project"), projectDialogFolder(recentFiles()), kProjectFilter);
    if (path.isEmpty()) return;
    if (QString e = openFile(path); !e.isEmpty()) QMessageBox::warning(this, tr("Open project"), e);
}

}  // namespace dpmix::workbench
