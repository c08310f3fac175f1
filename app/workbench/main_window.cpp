#include "app/workbench/main_window.h"

#include "app/workbench/calculator_evaluation.h"
#include "app/workbench/latest_result_runner.h"
#include "app/workbench/parameter_document.h"
#include "app/workbench/privacy_plan.h"
#include "app/workbench/project_store.h"
#include "app/workbench/run_controller.h"
#include "engine/core/version.h"
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
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTreeWidget>
#include <QUndoStack>

// Resources compiled into a static library are only linked in when referenced
// (Q_INIT_RESOURCE must be called outside any namespace).
static void initWorkbenchResources() { Q_INIT_RESOURCE(workbench); }

namespace dpmix::workbench {

namespace {
constexpr int kMaxRecentFiles = 8;
const char* const kRecentKey = "recentFiles";
const char* const kGeometryKey = "mainWindow/geometry";
const char* const kStateKey = "mainWindow/state";
const QString kProjectFilter = QStringLiteral("dpmix project (*.dpmix)");

widgets::JobState toJobState(JobOutcome outcome) {
    switch (outcome) {
    case JobOutcome::Succeeded: return widgets::JobState::Succeeded;
    case JobOutcome::Failed: return widgets::JobState::Failed;
    case JobOutcome::Cancelled: return widgets::JobState::Cancelled;
    }
    return widgets::JobState::Failed;
}
}  // namespace

MainWindow::MainWindow(WorkbenchServices services, QWidget* parent)
    : QMainWindow(parent),
      services_(std::move(services)),
      document_(new ParameterDocument(this)),
      runner_(new JobRunner(50, this)),
      planRunner_(new LatestResultRunner(30, this)),
      calculatorRunner_(new LatestResultRunner(30, this)),
      tabs_(new QTabWidget(this)),
      tree_(new QTreeWidget),
      parameters_(new widgets::ParameterPanel),
      calculator_(new widgets::PrivacyCalculatorPanel),
      jobs_(new widgets::JobListWidget) {
    initWorkbenchResources();
    setWindowIcon(QIcon(QStringLiteral(":/dpmix/icons/dpmix-workbench.svg")));
    tabs_->setDocumentMode(true);
    tabs_->setTabsClosable(true);
    auto* calculatorPage = new QScrollArea;
    calculatorPage->setWidgetResizable(true);
    calculatorPage->setFrameShape(QFrame::NoFrame);
    calculator_->setMaximumWidth(720);
    calculatorPage->setWidget(calculator_);
    tabs_->addTab(calculatorPage, tr("Privacy calculator"));
    tabs_->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr);
    // The calculator is the permanent first tab; analysis tabs opened later can be closed.
    connect(tabs_, &QTabWidget::tabCloseRequested, this, [this](int index) {
        if (index == 0) return;
        QWidget* page = tabs_->widget(index);
        tabs_->removeTab(index);
        page->deleteLater();
    });
    setCentralWidget(tabs_);

    buildDocks();
    buildMenus();
    jobStatus_ = new QLabel(tr("No jobs running"));
    statusBar()->addPermanentWidget(jobStatus_);
    statusBar()->showMessage(tr("Ready"), 3000);

    connect(document_, &ParameterDocument::valuesChanged, this, &MainWindow::onParametersChanged);
    connect(document_->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    connect(parameters_, &widgets::ParameterPanel::fieldEdited, document_, &ParameterDocument::edit);
    connect(parameters_, &widgets::ParameterPanel::runRequested, this, &MainWindow::requestRun);
    connect(calculator_, &widgets::PrivacyCalculatorPanel::inputsEdited, this, &MainWindow::onCalculatorInputs);

    connect(runner_, &JobRunner::started, jobs_, &widgets::JobListWidget::addJob);
    connect(runner_, &JobRunner::started, this, &MainWindow::updateJobStatus);
    connect(runner_, &JobRunner::progressed, jobs_, &widgets::JobListWidget::setProgress);
    connect(runner_, &JobRunner::finished, this, &MainWindow::onJobFinished);
    connect(jobs_, &widgets::JobListWidget::cancelRequested, runner_, &JobRunner::cancel);

    restoreWindowState();
    updateTitle();
    parameters_->setRunEnabled(false);  // until the first validation says otherwise
    onParametersChanged();
    calculatorRunner_->submitNow([inputs = calculator_->inputs(), panel = calculator_] {
        const CalculatorResult r = evaluateCalculator(inputs);
        return [panel, r] { applyCalculatorResult(*panel, r); };
    });
}

MainWindow::~MainWindow() {
    // Stop the stages before the widgets they report to go away.
    runner_->cancelAll();
}

void MainWindow::buildDocks() {
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    auto* projectDock = new QDockWidget(tr("Project"), this);
    projectDock->setObjectName("projectDock");
    tree_->setHeaderHidden(true);
    const QStringList groups = {tr("Public sources"), tr("Sensitive data"), tr("Tasks"), tr("Runs")};
    const QStringList hints = {tr("Add public data sets or label tasks"), tr("Attach the sensitive data set"),
                               tr("Define what the model should predict"), tr("Runs appear here as they start")};
    for (int i = 0; i < groups.size(); ++i) {
        auto* group = new QTreeWidgetItem(tree_, {groups[i]});
        QFont bold = group->font(0);
        bold.setBold(true);
        group->setFont(0, bold);
        auto* placeholder = new QTreeWidgetItem(group, {tr("(none yet)")});
        placeholder->setToolTip(0, hints[i]);
        placeholder->setForeground(0, palette().brush(QPalette::Disabled, QPalette::Text));
        placeholder->setFlags(Qt::ItemIsEnabled);
        group->setExpanded(true);
    }
    projectDock->setWidget(tree_);
    projectDock->setMinimumWidth(200);
    addDockWidget(Qt::LeftDockWidgetArea, projectDock);

    auto* parameterDock = new QDockWidget(tr("Parameters"), this);
    parameterDock->setObjectName("parametersDock");
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(parameters_);
    parameterDock->setWidget(scroll);
    parameterDock->setMinimumWidth(440);
    addDockWidget(Qt::RightDockWidgetArea, parameterDock);

    auto* jobsDock = new QDockWidget(tr("Jobs"), this);
    jobsDock->setObjectName("jobsDock");
    jobsDock->setWidget(jobs_);
    addDockWidget(Qt::BottomDockWidgetArea, jobsDock);
    resizeDocks({jobsDock}, {170}, Qt::Vertical);
    resizeDocks({projectDock, parameterDock}, {220, 460}, Qt::Horizontal);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, [this] {
        if (maybeSave()) newProject();
    });
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        if (maybeSave()) openWithDialog();
    });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { saveWithDialog(false); });
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, [this] { saveWithDialog(true); });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("Privacy &calculator"), this, [this] { showView("calculator"); });

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    QAction* runAction = run->addAction(tr("&Run DP-MixMin"), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::requestRun);
    runAction->setEnabled(false);
    // The menu item follows the panel's Run button, which follows validation.
    connect(planRunner_, &LatestResultRunner::applied, runAction,
            [this, runAction] { runAction->setEnabled(parameters_->runButton()->isEnabled()); });
    run->addAction(tr("&Cancel all jobs"), this, [this] { runner_->cancelAll(); });
    run->addAction(tr("C&lear finished jobs"), jobs_, &widgets::JobListWidget::clearFinished);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
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

void MainWindow::onParametersChanged() {
    parameters_->setValues(document_->values());
    planRunner_->submit([values = document_->values(), panel = parameters_] {
        const PrivacyPlan plan = planPrivacy(values);
        const QString summary = privacySummaryHtml(plan, values);
        const QString split = splitSummaryText(plan);
        return [panel, plan, summary, split] {
            panel->setMessages(plan.messages);
            panel->setSplitSummary(split);
            panel->setPrivacySummary(summary, plan.valid);
            panel->setRunEnabled(plan.valid);
        };
    });
}

void MainWindow::onCalculatorInputs() {
    calculatorRunner_->submit([inputs = calculator_->inputs(), panel = calculator_] {
        const CalculatorResult r = evaluateCalculator(inputs);
        return [panel, r] { applyCalculatorResult(*panel, r); };
    });
}

bool MainWindow::calculationsIdle() const { return planRunner_->isIdle() && calculatorRunner_->isIdle(); }

void MainWindow::updateJobStatus() {
    const int running = runner_->runningCount();
    jobStatus_->setText(running == 0 ? tr("No jobs running") : tr("%n job(s) running", nullptr, running));
}

void MainWindow::updateTitle() {
    const QString name = currentFile_.isEmpty() ? tr("Untitled") : QFileInfo(currentFile_).fileName();
    setWindowTitle(tr("%1[*] — dpmix workbench").arg(name));
    setWindowModified(!document_->undoStack()->isClean());
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
    }
    if (files.isEmpty()) recentMenu_->addAction(tr("(no recent projects)"))->setEnabled(false);
    else {
        recentMenu_->addSeparator();
        recentMenu_->addAction(tr("Clear list"), this, [] { QSettings().remove(kRecentKey); });
    }
}

void MainWindow::newProject() {
    currentFile_.clear();
    document_->reset(widgets::RunParameters{});
    updateTitle();
    statusBar()->showMessage(tr("New project"), 3000);
}

QString MainWindow::openFile(const QString& path) {
    auto opened = services_.projects->open(path);
    if (!opened) {
        const QString message = QString::fromStdString(opened.error().message);
        statusBar()->showMessage(message, 10000);
        return message;
    }
    currentFile_ = QFileInfo(path).absoluteFilePath();
    document_->reset(*opened);
    rememberRecent(path);
    updateTitle();
    statusBar()->showMessage(tr("Opened %1").arg(path), 3000);
    return {};
}

QString MainWindow::saveTo(const QString& path) {
    if (auto error = services_.projects->save(path, document_->values())) {
        const QString message = QString::fromStdString(error->message);
        statusBar()->showMessage(message, 10000);
        return message;
    }
    currentFile_ = QFileInfo(path).absoluteFilePath();
    document_->undoStack()->setClean();
    rememberRecent(path);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 3000);
    return {};
}

void MainWindow::openWithDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(), kProjectFilter);
    if (path.isEmpty()) return;
    if (QString e = openFile(path); !e.isEmpty()) QMessageBox::warning(this, tr("Open project"), e);
}

bool MainWindow::saveWithDialog(bool forceDialog) {
    QString path = currentFile_;
    if (forceDialog || path.isEmpty()) {
        path = QFileDialog::getSaveFileName(this, tr("Save project"), path, kProjectFilter);
        if (path.isEmpty()) return false;
        if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".dpmix");
    }
    if (QString e = saveTo(path); !e.isEmpty()) {
        QMessageBox::warning(this, tr("Save project"), e);
        return false;
    }
    return true;
}

bool MainWindow::maybeSave() {
    if (document_->undoStack()->isClean()) return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                             tr("The parameters have unsaved changes. Save them first?"),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return saveWithDialog(false);
    return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    saveWindowState();
    runner_->cancelAll();
    runner_->waitForAll();  // stages poll their token at least once a second
    event->accept();
}

AboutInfo MainWindow::aboutInfo() const {
    return AboutInfo{QString::fromStdString(dpmix::versionString()), QString::fromLatin1(qVersion()),
                     services_.torchVersion ? services_.torchVersion() : tr("unknown"),
                     services_.projects->schemaVersion()};
}

void MainWindow::showAbout() { QMessageBox::about(this, tr("About dpmix workbench"), aboutHtml(aboutInfo())); }

void MainWindow::requestRun() {
    const PrivacyPlan plan = planPrivacy(document_->values());
    if (!plan.valid) {
        statusBar()->showMessage(tr("Fix the highlighted parameters before running."), 5000);
        return;
    }
    auto stages = services_.runs->planRun(document_->values());
    if (!stages) {
        statusBar()->showMessage(QString::fromStdString(stages.error().message), 15000);
        return;
    }
    startStages(*stages);
}

void MainWindow::startStages(const QList<StageJob>& stages) {
    pendingStages_ += stages;
    if (currentStageJob_ == 0) startNextStage();
}

void MainWindow::startNextStage() {
    if (pendingStages_.isEmpty()) {
        currentStageJob_ = 0;
        return;
    }
    StageJob next = pendingStages_.takeFirst();
    currentStageJob_ = runner_->start(next.stage, std::move(next.work));
}

void MainWindow::onJobFinished(int jobId, JobOutcome outcome, const QString& message) {
    jobs_->setFinished(jobId, toJobState(outcome), message);
    updateJobStatus();
    if (jobId != currentStageJob_) return;
    currentStageJob_ = 0;
    if (outcome == JobOutcome::Succeeded) {
        startNextStage();
    } else {
        // A failed or cancelled stage ends the run: later stages depend on its output.
        if (!pendingStages_.isEmpty())
            statusBar()->showMessage(tr("%n later stage(s) not started", nullptr, static_cast<int>(pendingStages_.size())), 8000);
        pendingStages_.clear();
    }
}

QStringList MainWindow::viewNames() { return {"main", "calculator", "parameters", "jobs"}; }

bool MainWindow::showView(const QString& name) {
    if (name == "main") return true;
    if (name == "calculator") {
        tabs_->setCurrentIndex(0);
        return true;
    }
    const QString dockName = name == "parameters" ? "parametersDock" : name == "jobs" ? "jobsDock" : QString();
    if (dockName.isEmpty()) return false;
    if (auto* dock = findChild<QDockWidget*>(dockName)) {
        dock->show();
        dock->raise();
        return true;
    }
    return false;
}

void MainWindow::addAnalysisTab(QWidget* page, const QString& title) {
    tabs_->setCurrentIndex(tabs_->addTab(page, title));
}

}  // namespace dpmix::workbench
