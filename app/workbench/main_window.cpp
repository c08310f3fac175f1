#include "app/workbench/main_window.h"
#include "app/workbench/project/read_only_files.h"

#include "app/workbench/parameters/calculator_evaluation.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/parameters/rho_guidance_text.h"
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

#include <cmath>

// Resources compiled into a static library are only linked in when referenced
// (Q_INIT_RESOURCE must be called outside any namespace).
static void initWorkbenchResources() { Q_INIT_RESOURCE(workbench); }

namespace dpmix::workbench {

namespace {

QString groupedCount(long long n) { return QLocale::c().toString(n).replace(',', QChar(0x2009)); }

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
      jobs_(new widgets::JobListWidget),
      budgetMeter_(new widgets::BudgetMeter) {
    initWorkbenchResources();
    // The parts' names: what a test or a tool finds them by (findChild), with no getter for each.
    runner_->setObjectName("jobRunner");
    tabs_->setObjectName("analysisTabs");
    tree_->setObjectName("projectTree");
    parameters_->setObjectName("parameterPanel");
    calculator_->setObjectName("calculatorPanel");
    jobs_->setObjectName("jobList");
    setWindowIcon(QIcon(QStringLiteral(":/dpmix/icons/dpmix-workbench.svg")));
    buildCalculatorTab();
    setCentralWidget(tabs_);

    buildStudyController();
    buildDocks();
    buildMenus();
    connectRunDetails();
    jobStatus_ = new QLabel(tr("No jobs running"));
    statusBar()->addPermanentWidget(jobStatus_);
    statusBar()->showMessage(tr("Ready"), 3000);

    connect(document_, &ParameterDocument::valuesChanged, this, &MainWindow::onParametersChanged);
    connect(document_->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    connect(parameters_, &widgets::ParameterPanel::fieldEdited, document_, &ParameterDocument::edit);
    connect(parameters_, &widgets::ParameterPanel::runRequested, this, &MainWindow::requestRun);
    connect(calculator_, &widgets::PrivacyCalculatorPanel::inputsEdited, this, &MainWindow::onCalculatorInputs);

    connectJobs();
    restoreWindowState();
    updateTitle();
    parameters_->setRunEnabled(false);  // until the first validation says otherwise
    onParametersChanged();
    calculatorRunner_->submitNow([inputs = calculator_->inputs(), panel = calculator_] {
        const CalculatorResult r = evaluateCalculator(inputs);
        return [panel, r] { applyCalculatorResult(*panel, r); };
    });
}

// The analysis area: the calculator is its permanent first tab; analysis tabs opened later can be
// closed.
void MainWindow::buildCalculatorTab() {
    tabs_->setDocumentMode(true);
    tabs_->setTabsClosable(true);
    auto* calculatorPage = new QScrollArea;
    calculatorPage->setWidgetResizable(true);
    calculatorPage->setFrameShape(QFrame::NoFrame);
    calculatorPage->setObjectName("calculatorView");
    calculator_->setMaximumWidth(720);
    calculatorPage->setWidget(calculator_);
    tabs_->addTab(calculatorPage, tr("Calculator"));
    tabs_->setTabToolTip(0, tr("Privacy calculator"));
    tabs_->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr);
    connect(tabs_, &QTabWidget::tabCloseRequested, this, [this](int index) {
        if (index == 0) return;
        QWidget* page = tabs_->widget(index);
        tabs_->removeTab(index);
        page->deleteLater();
    });
}

// Building a new study: the controller, and what a registration changes in the tree and the panel.
void MainWindow::buildStudyController() {
    // Registrations share the parameters' undo stack, so Edit ▸ Undo walks back through both.
    study_ = new StudyController(tree_, document_->undoStack(), services_.sources, services_.studies, this);
    connect(study_, &StudyController::draftChanged, this, [this] {
        if (project_) return;
        populateTree();
        if (studyComponents() != planComponents_) onParametersChanged();  // k changed: new ρ guidance
        // The draft's pool kind or n may have changed: "Will public data help?" follows.
        updatePublicDataAdvice();
        // The panel plans with the registered sensitive data as soon as it is registered: n is its
        // training part (80% of the examples, or of the users at user level), in its unit. Applied
        // as a consequence of the registration, not as an edit of its own (Undo undoes the
        // registration; the next registration sets n again).
        const auto& sensitive = study_->builder()->draft().sensitive;
        if (!sensitive) return;
        const bool users = sensitive->userLevel && sensitive->facts.users > 0;
        const long long all = users ? sensitive->facts.users : sensitive->facts.examples;
        if (all > 0)
            document_->apply(widgets::ParameterField::SensitiveCount, static_cast<qint64>(std::llround(0.8 * all)));
        parameters_->setUnitName(users ? tr("users") : tr("examples"));
    });
    connect(study_, &StudyController::message, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
}

// The job runner and the stage queue report to the job list, the log and the status bar; the
// engine's study log and live private set arrive from the worker thread.
void MainWindow::connectJobs() {
    connect(runner_, &JobRunner::started, jobs_, &widgets::JobListWidget::addJob);
    connect(runner_, &JobRunner::started, this, &MainWindow::updateJobStatus);
    connect(runner_, &JobRunner::progressed, jobs_, &widgets::JobListWidget::setProgress);
    connect(runner_, &JobRunner::finished, this, &MainWindow::onJobFinished);
    queue_ = new StageQueue(runner_, jobs_, this);
    queue_->setObjectName("stageQueue");
    connect(queue_, &StageQueue::logged, this, [this](const QString& line) {
        appendLog(tr("Jobs: %1").arg(line));
        updateJobStatus();
    });
    // A stage stores its results as it goes, so even a failed or cancelled one changes them.
    connect(queue_, &StageQueue::stageEnded, this, [this] {
        if (!currentFile_.isEmpty()) refreshProject();
        if (clusterJobs_) clusterJobs_->refresh();  // a submission, merge, cancel or resubmission ended
    });
    // The engine's study log arrives from the worker thread (queued by the auto connection).
    if (auto* engineRuns = dynamic_cast<EngineRunController*>(services_.runs)) {
        connect(engineRuns, &EngineRunController::logged, this, &MainWindow::appendLog);
        qRegisterMetaType<PrivateSetImages>();
        connect(engineRuns, &EngineRunController::privateSetUpdated, this, &MainWindow::showLivePrivateSet);
    }
}

MainWindow::~MainWindow() {
    // Stop the stages before the widgets they report to go away.
    runner_->cancelAll();
}

void MainWindow::onParametersChanged() {
    parameters_->setValues(document_->values());
    updateBudgetMeter();  // the panel's cap is part of the reading
    // "Will public data help?" follows ε.
    updatePublicDataAdvice();
    // Until the new plan is computed the shown summary is stale: Run waits for it, and when the
    // computation takes long enough to notice, the summary says "computing…".
    parameters_->setRunEnabled(false);
    computingTimer_->start();
    const long long k = planComponents_ = studyComponents();
    planRunner_->submit([this, values = document_->values(), panel = parameters_, k] {
        const PrivacyPlan plan = planPrivacy(values);
        const QString summary = privacySummaryHtml(plan, values);
        const QString split = splitSummaryText(plan);
        const QString guidance = rhoGuidanceHtml(values, k);
        return [this, panel, plan, summary, split, guidance] {
            panel->setMessages(plan.messages);
            panel->setSplitSummary(split);
            panel->setRhoGuidance(guidance);
            panel->setPrivacySummary(summary, plan.valid);
            panel->setRunEnabled(plan.valid && !readOnly_);
            computingTimer_->stop();  // applied only for the newest values (the runner drops stale ones)
            panel->setComputing(false);
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
    const int queued = queue_ ? queue_->queuedCount() : 0;
    QString text = running == 0 ? tr("No jobs running") : tr("%n job(s) running", nullptr, running);
    if (queued > 0) text += tr(", %n queued", nullptr, queued);
    jobStatus_->setText(text);
}

void MainWindow::updateTitle() {
    QString name = !currentFile_.isEmpty() ? QFileInfo(currentFile_).fileName()
                   : !draftReplaces_.isEmpty()
                       ? tr("%1 (editing sources and tasks)").arg(QFileInfo(draftReplaces_).fileName())
                       : tr("Untitled");
    if (readOnly_) name += tr(" (read-only)");
    if (project_) name += QStringLiteral(" — ") + project_->trust.shortLabel;
    setWindowTitle(tr("%1[*] — dpmix workbench").arg(name));
    setWindowModified(!readOnly_ && (!document_->undoStack()->isClean() || hasUnsavedDraft()));
    updateStudyActions();
}

void MainWindow::newProject() {
    currentFile_.clear();
    draftReplaces_.clear();
    project_.reset();
    readOnly_ = false;
    services_.runs->setProject({}, false);
    study_->clear();
    study_->setEditable(true);
    populateTree();
    rebuildResultTabs();
    updateBudgetMeter();
    updateTrustBanner();
    applyReadOnly();
    document_->reset(widgets::RunParameters{});
    updateTitle();
    statusBar()->showMessage(tr("New project"), 3000);
}

QString MainWindow::openFile(const QString& path, bool readOnly) {
    // Before the first read: a project opened read-only is only ever opened read-only.
    const QString previous = currentFile_;
    if (!previous.isEmpty()) setOpenedReadOnly(previous, false);
    setOpenedReadOnly(path, readOnly);
    auto opened = services_.projects->open(path);
    if (!opened) {
        setOpenedReadOnly(path, false);
        if (!previous.isEmpty()) setOpenedReadOnly(previous, readOnly_);  // the open project stays as it was
        const QString message = QString::fromStdString(opened.error().message);
        statusBar()->showMessage(message, 10000);
        return message;
    }
    currentFile_ = QFileInfo(path).absoluteFilePath();
    draftReplaces_.clear();
    // Finished rows were the previous project's runs; running and queued ones stay until they end.
    if (currentFile_ != previous) jobs_->clearFinished();
    readOnly_ = readOnly;
    study_->clear();  // a project's sources change only through Study ▸ Edit / Duplicate
    study_->setEditable(false);
    document_->reset(*opened);
    rememberRecent(path);
    services_.runs->setProject(currentFile_, readOnly_);
    justOpened_ = true;  // the result tabs open on the study's first view
    refreshProject();
    justOpened_ = false;
    if (project_ && project_->trust.release && !readOnly_) {  // a DP release is never written
        readOnly_ = true;
        services_.runs->setProject(currentFile_, true);
    }
    applyReadOnly();
    updateTitle();
    statusBar()->showMessage(readOnly_ ? tr("Opened %1 read-only").arg(path) : tr("Opened %1").arg(path), 3000);
    return {};
}

QString MainWindow::newFromSpec(const QString& specPath) {
    auto created = services_.projects->createFromSpec(specPath);
    if (!created) {
        const QString message = QString::fromStdString(created.error().message);
        statusBar()->showMessage(message, 10000);
        return message;
    }
    return openFile(*created);
}

void MainWindow::refreshProject() {
    project_.reset();
    if (!currentFile_.isEmpty()) {
        auto loaded = services_.projects->load(currentFile_);
        if (loaded)
            project_ = std::move(loaded).value();
        else
            appendLog(tr("Cannot read the project's results: %1").arg(QString::fromStdString(loaded.error().message)));
    }
    populateTree();
    rebuildResultTabs();
    updateBudgetMeter();
    updateTrustBanner();
    updateTitle();
    // A study without public data has no mixture to set up (it runs PSG only).
    parameters_->setMixtureShown(!project_ || !project_->spec.publicSources.empty());
    if (studyComponents() != planComponents_) onParametersChanged();  // the ρ guidance follows the study's k
    // Another study: "Will public data help?" for its pool kind and n.
    updatePublicDataAdvice();
}

long long MainWindow::studyComponents() const {
    return project_
               ? static_cast<long long>(project_->spec.mixtureComponents(project::publicLabelCounts(project_->sources)))
               : study_->builder()->draft().mixtureComponents();
}

void MainWindow::applyReadOnly() {
    for (QAction* a : writeActions_) a->setEnabled(!readOnly_);
    parameters_->setEditable(!readOnly_);  // nothing to edit, so nothing to save or to ask about
    if (readOnly_) {
        parameters_->setRunEnabled(false);
        runAction_->setEnabled(false);
    } else {
        onParametersChanged();  // re-validates and re-enables Run when the values are valid
    }
    if (runActions_) runActions_->updateEnabled();
    if (clusterJobs_) clusterJobs_->setProject(currentFile_, readOnly_);
}

void MainWindow::appendLog(const QString& line) {
    log_->appendPlainText(QStringLiteral("%1  %2").arg(QTime::currentTime().toString("HH:mm:ss"), line));
}

void MainWindow::populateTree() {
    tree_->clear();
    tree_->setTextElideMode(Qt::ElideMiddle);  // a narrow dock keeps a row's name and its counts
    const QStringList groups = {tr("Public sources"), tr("Sensitive data"), tr("Tasks"), tr("Runs")};
    const QStringList hints = {tr("Add public data sets or label tasks"), tr("Attach the sensitive data set"),
                               tr("Define what the model should predict"), tr("Runs appear here as they start")};
    QList<QTreeWidgetItem*> group;
    for (const QString& name : groups) {
        auto* item = new QTreeWidgetItem(tree_, {name});
        QFont bold = item->font(0);
        bold.setBold(true);
        item->setFont(0, bold);
        item->setExpanded(true);
        group << item;
    }
    auto addChild = [](QTreeWidgetItem* parent, const QString& text, const QString& tip) {
        auto* item = new QTreeWidgetItem(parent, {text});
        item->setToolTip(0, tip);
        return item;
    };
    if (project_) {
        const ProjectSnapshot& p = *project_;
        group[0]->setText(0, tr("Public sources (k = %1 components)")
                                 .arg(p.spec.mixtureComponents(project::publicLabelCounts(p.sources))));
        for (const auto& s : p.sources) {
            const auto& f = s.facts;
            const auto count =
                static_cast<long long>(f.kind == data::SourceKind::Text ? f.domains.size() : f.labelNames.size());
            const QString unit = f.kind == data::SourceKind::Text ? (count == 1 ? tr("domain") : tr("domains"))
                                                                  : (count == 1 ? tr("class") : tr("classes"));
            const QString what = QStringLiteral("%1 %2").arg(count).arg(unit);
            QString text =
                tr("%1 — %2 examples, %3").arg(QString::fromStdString(s.name), groupedCount(f.examples), what);
            if (s.userLevel) text += tr(", %1 users (user-level)").arg(groupedCount(f.users));
            const QString tip = tr("%1 source (%2)\nloader: %3\npath: %4\ncontent hash (SHA-256): %5")
                                    .arg(QString::fromStdString(project::nameOf(s.role)),
                                         QString::fromStdString(data::nameOf(f.kind)), QString::fromStdString(s.loader),
                                         QString::fromStdString(s.path), QString::fromStdString(f.contentHash));
            addChild(s.role == project::SourceRole::Sensitive ? group[1] : group[0], text,
                     text + QLatin1Char('\n') + tip);
        }
        for (const auto& t : p.spec.publicTasks) {
            QStringList classes;
            for (const auto& c : t.classes) classes << QString::fromStdString(c);
            const QString name =
                t.source.empty() ? QString::fromStdString(t.name) : QString::fromStdString(t.source + " / " + t.name);
            addChild(group[2], tr("public: %1").arg(name), classes.join(", "));
        }
        for (const auto& t : p.spec.sensitiveTasks) {
            QStringList classes;
            for (const auto& c : t.classes) classes << QString::fromStdString(c);
            addChild(group[2], tr("sensitive: %1").arg(QString::fromStdString(t.name)), classes.join(", "));
        }
        for (const auto& r : p.runs) {
            const QString status = QString::fromStdString(project::toString(r.run.status));
            auto* item = addChild(
                group[3], runLabel(r.run) + QStringLiteral(" — ") + status,
                tr("created %1, finished %2%3\nDouble-click or Enter: run details")
                    .arg(QString::fromStdString(r.run.createdAt), QString::fromStdString(r.run.finishedAt),
                         r.run.message.empty() ? QString()
                                               : QStringLiteral("\n") + QString::fromStdString(r.run.message)));
            item->setData(0, Qt::UserRole, static_cast<qlonglong>(r.run.id));
        }
        group[3]->setText(0, tr("Runs (%1)").arg(p.runs.size()));
        group[3]->setExpanded(p.runs.size() <= 40);
    }
    if (!project_) study_->addDraftRows(group[0], group[1], group[2]);  // a new study's registrations
    for (int i = 0; i < group.size(); ++i) {
        if (group[i]->childCount() > 0) continue;
        auto* placeholder = addChild(group[i], tr("(none yet)"), hints[i]);
        placeholder->setForeground(0, palette().brush(QPalette::Disabled, QPalette::Text));
        placeholder->setFlags(Qt::ItemIsEnabled);
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    saveWindowState();
    queue_->cancelAll();
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
    if (readOnly_) {
        statusBar()->showMessage(tr("This project is open read-only: runs are disabled."), 5000);
        return;
    }
    if (const QString refusal = unsavedDraftRefusal(); !refusal.isEmpty()) {
        statusBar()->showMessage(refusal, 15000);
        return;
    }
    const PrivacyPlan plan = planPrivacy(document_->values());
    if (!plan.valid) {
        statusBar()->showMessage(tr("Fix the highlighted parameters before running."), 5000);
        return;
    }
    RunAction action;
    action.kind = RunKind::DpMixMin;
    action.parameters = document_->values();
    if (!confirmSpending(action, plan)) return;
    auto stages = services_.runs->planRun(document_->values());
    if (!stages) {
        statusBar()->showMessage(QString::fromStdString(stages.error().message), 15000);
        return;
    }
    startStages(*stages);
}

void MainWindow::startStages(const QList<StageJob>& stages) {
    queue_->enqueue(stages);
    statusBar()->showMessage(spentPrivacyNotice(), 15000);
}

void MainWindow::onJobFinished(int jobId, JobOutcome outcome, const QString& message) {
    jobs_->setFinished(jobId, toJobState(outcome), message);
    updateJobStatus();
}

}  // namespace dpmix::workbench
