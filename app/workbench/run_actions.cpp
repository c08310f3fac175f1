#include "app/workbench/run_actions.h"

#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/project/pinned_baseline.h"
#include "app/workbench/runs/audit_dialog.h"
#include "app/workbench/runs/cluster_run_dialog.h"
#include "app/workbench/runs/epsilon_sweep_dialog.h"
#include "app/workbench/runs/psg_dialog.h"
#include "app/workbench/runs/run_controller.h"
#include "app/workbench/views/run_comparison_view.h"
#include "widgets/chart_widget.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMessageBox>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

namespace dpmix::workbench {

QString spentPrivacyNotice() {
    return QObject::tr(
        "Runs cannot be undone: the privacy they spent on sensitive data is spent for good. "
        "Undo reverts parameter edits only.");
}

RunActions::RunActions(MainWindow* window, WindowParts parts, RunController* runs)
    : QObject(window),
      window_(window),
      parts_(parts),
      runs_(runs),
      compare_(new QAction(tr("Compare with &baselines"), this)),
      relearnMixture_(new QAction(tr("Learn the &mixture again in comparisons"), this)),
      sweep_(new QAction(tr("ε &sweep…"), this)),
      audit_(new QAction(tr("&Audit…"), this)),
      psg_(new QAction(tr("Generate &private set (PSG)…"), this)),
      compareRuns_(new QAction(tr("Compare selected r&uns"), this)),
      exportReport_(new QAction(tr("Export &report…"), this)),
      cluster_(new QAction(tr("Run on c&luster…"), this)) {
    compare_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    compare_->setToolTip(
        tr("Run DP-MixMin and the four baselines (Uniform, Random Search, Random Init, non-private "
           "MixMin) through pretraining, private fine-tuning and evaluation"));
    relearnMixture_->setCheckable(true);
    relearnMixture_->setObjectName("relearnMixture");
    relearnMixture_->setToolTip(
        tr("Off (the default): Compare with baselines reuses the DP-MixMin mixture this project already released "
           "with the same settings, and spends nothing again on split A. On: it learns the mixture again, a new "
           "release that spends privacy again"));
    relearnMixture_->setStatusTip(relearnMixture_->toolTip());
    sweep_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    sweep_->setToolTip(tr("Run the same study at several ε and plot utility against ε (the teaching demo)"));
    audit_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    audit_->setToolTip(tr("Measure an empirical lower bound on the mixture step's ε with a canary"));
    compareRuns_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    compareRuns_->setToolTip(
        tr("Select two runs or more in the project tree, then compare their settings and metrics"));
    exportReport_->setToolTip(
        tr("Write an HTML and PDF report of the study for a reviewer: spec, data hashes, every run "
           "with its ledger and verification, plots, software versions"));
    psg_->setToolTip(
        tr("Learn a few synthetic images per class from the sensitive images under differential privacy "
           "(Private Set Generation), evaluate them, and show them in the Private set tab"));
    for (QAction* a : {compare_, sweep_, audit_, psg_}) a->setStatusTip(a->toolTip());

    connect(compare_, &QAction::triggered, this, [this] { startCompareWithBaselines(); });
    connect(sweep_, &QAction::triggered, this, &RunActions::runSweepDialog);
    connect(audit_, &QAction::triggered, this, &RunActions::runAuditDialog);
    connect(psg_, &QAction::triggered, this, &RunActions::runPsgDialog);
    connect(cluster_, &QAction::triggered, this, &RunActions::runClusterDialog);
    connect(compareRuns_, &QAction::triggered, this, [this] {
        if (QString e = compareRuns(selectedRunIds()); !e.isEmpty()) showStatus(e);
    });
    connect(exportReport_, &QAction::triggered, this, &RunActions::exportReportWithDialog);
    // The run actions follow "Run DP-MixMin", which follows validation and read-only mode.
    connect(parts_.runAction, &QAction::enabledChanged, this, &RunActions::updateEnabled);
    updateEnabled();

    QTreeWidget* tree = parts_.projectTree;
    tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(tree, &QTreeWidget::customContextMenuRequested, this, &RunActions::onTreeContextMenu);
    compareRuns_->setEnabled(false);
    connect(tree, &QTreeWidget::itemSelectionChanged, this,
            [this] { compareRuns_->setEnabled(selectedRunIds().size() >= 2); });
}

void RunActions::addToMenus(QMenu* fileMenu, QAction* beforeInFile, QMenu* runMenu) {
    fileMenu->insertAction(beforeInFile, exportReport_);
    fileMenu->insertSeparator(beforeInFile);
    const QList<QAction*> existing = runMenu->actions();
    QAction* before = existing.size() > 1 ? existing[1] : nullptr;  // after "Run DP-MixMin"
    runMenu->insertActions(before, {compare_, relearnMixture_, sweep_, audit_, psg_});
    runMenu->insertSeparator(before);
    runMenu->insertAction(before, cluster_);
    runMenu->insertSeparator(before);
    runMenu->insertAction(before, compareRuns_);
    runMenu->insertSeparator(before);
    // sbatch may appear on PATH (or go) while the window is open: asked again when the menu opens.
    connect(runMenu, &QMenu::aboutToShow, this, &RunActions::updateEnabled);
    toolBar_ = window_->addToolBar(tr("Run"));
    toolBar_->setObjectName("runToolBar");
    toolBar_->addAction(parts_.runAction);
    toolBar_->addActions({compare_, sweep_, audit_});
}

void RunActions::updateEnabled() {
    const bool canRun = parts_.runAction->isEnabled() && !window_->isReadOnly();
    for (QAction* a : {compare_, sweep_, audit_}) a->setEnabled(canRun);
    updateClusterEnabled(canRun);
    // PSG needs a writable project, not a valid mixture plan (a PSG study has no mixture at all).
    psg_->setEnabled(!window_->isReadOnly() && window_->project() != nullptr);
}

void RunActions::showStatus(const QString& message, int timeoutMs) {
    window_->statusBar()->showMessage(message, timeoutMs);
}

QString RunActions::start(const RunAction& action) {
    if (window_->isReadOnly()) {
        const QString message = tr("This project is open read-only: runs are disabled.");
        showStatus(message);
        return message;
    }
    if (const QString refusal = window_->unsavedDraftRefusal(); !refusal.isEmpty()) {
        showStatus(refusal, 15000);
        return refusal;
    }
    // PSG uses the panel's ε, δ and accountant but none of the mixture stage's values, so a
    // mixture setting that does not fit the data does not block it (the engine checks ε).
    const bool checksPanel = action.kind != RunKind::Rerun && action.kind != RunKind::PrivateSet;
    const PrivacyPlan plan = checksPanel ? planPrivacy(action.parameters) : PrivacyPlan{};
    if (checksPanel && !plan.valid) {
        const QString message = tr("Fix the highlighted parameters before running.");
        showStatus(message);
        return message;
    }
    const bool fineTunes =
        action.kind == RunKind::CompareBaselines || (action.kind == RunKind::EpsilonSweep && action.sweep.fullPipeline);
    if (checksPanel && fineTunes && !plan.downstreamProblem.isEmpty()) {
        const QString message = tr("Not started: %1.").arg(plan.downstreamProblem);
        showStatus(message, 15000);
        return message;
    }
    // Runs and sweeps are previewed and confirmed (a sweep spends at every ε; re-runs and audits
    // are not: the engine checks the cap for every run before any mechanism starts).
    if ((action.kind == RunKind::DpMixMin || action.kind == RunKind::CompareBaselines) &&
        !window_->confirmSpending(action, plan))
        return tr("Not started: the privacy budget was not confirmed.");
    if (action.kind == RunKind::EpsilonSweep && !window_->confirmSweepSpending(action.parameters, action.sweep))
        return tr("Not started: the privacy budget was not confirmed.");
    if (action.kind == RunKind::PrivateSet && !window_->confirmPrivateSetSpending(action.parameters, action.psg))
        return tr("Not started: the privacy budget was not confirmed.");
    auto stages = runs_->planAction(action);
    if (!stages) {
        const QString message = QString::fromStdString(stages.error().message);
        showStatus(message, 15000);
        return message;
    }
    window_->startStages(*stages);
    return {};
}

QString RunActions::startCompareWithBaselines() {
    RunAction action;
    action.kind = RunKind::CompareBaselines;
    action.parameters = window_->document()->values();
    action.relearnMixture = relearnMixture_->isChecked();
    return start(action);
}

QString RunActions::startEpsilonSweep(const SweepScope& scope) {
    RunAction action;
    action.kind = RunKind::EpsilonSweep;
    action.parameters = window_->document()->values();
    action.sweep = scope;
    return start(action);
}

QString RunActions::startAudit(const AuditSettings& settings) {
    RunAction action;
    action.kind = RunKind::Audit;
    action.parameters = window_->document()->values();
    action.audit = settings;
    return start(action);
}

namespace {
// The fine-tuning mechanism a downstream run's config names ("dp-sgd", "dirichlet", "adamix-r"), or empty.
QString finetuneMechanismOf(const project::RunRecord& run) {
    const QJsonObject config = QJsonDocument::fromJson(QByteArray::fromStdString(run.configJson)).object();
    return config.value("finetune_mechanism").toString();
}
}  // namespace

QString RunActions::oneRunAuditRefusal(long long runId) const {
    const ProjectSnapshot* project = window_->project();
    const RunResults* r = project ? project->findRun(runId) : nullptr;
    if (!r) return tr("Audit: run %1 is not in the open project.").arg(runId);
    const QString mechanism = finetuneMechanismOf(r->run);
    if (mechanism.isEmpty() || !r->run.epsilon)
        return tr("Run %1 fine-tuned nothing privately: only a downstream run's fine-tuning can be audited in one "
                  "training.")
            .arg(runId);
    if (mechanism != QStringLiteral("dp-sgd") && mechanism != QStringLiteral("dirichlet"))
        return tr("Run %1 fine-tuned with %2, a head on frozen features: the one-run audit audits DP-SGD and the "
                  "Dirichlet mechanism.")
            .arg(runId)
            .arg(mechanism);
    if (!r->done()) return tr("Run %1 has not finished.").arg(runId);
    return {};
}

QString RunActions::startOneRunAuditOf(long long runId, const AuditSettings& settings) {
    if (const QString why = oneRunAuditRefusal(runId); !why.isEmpty()) return why;
    const RunResults* r = window_->project()->findRun(runId);
    RunAction action;
    action.kind = RunKind::Audit;
    action.parameters = window_->document()->values();
    action.parameters.epsilon = *r->run.epsilon;  // the claim is the audited run's ε, not the panel's
    action.audit = settings;
    action.audit.task = QString::fromStdString(r->run.task);
    action.audit.mechanism = finetuneMechanismOf(r->run);
    action.audit.seed = r->run.seed;
    action.audit.oneRun = true;
    // The fine-tuning as the run ran it (its stored configuration), not the spec's defaults.
    const QJsonObject config = QJsonDocument::fromJson(QByteArray::fromStdString(r->run.configJson)).object();
    if (config.contains("finetune_steps") && config.contains("finetune_batch"))
        action.audit.finetune = AuditSettings::Finetune{
            config.value("finetune_clip").toDouble(), config.value("finetune_batch").toInteger(),
            config.value("finetune_lr").toDouble(), config.value("finetune_steps").toInteger()};
    return start(action);
}

void RunActions::runOneRunAuditDialog(long long runId) {
    if (const QString why = oneRunAuditRefusal(runId); !why.isEmpty()) {
        showStatus(why, 15000);
        return;
    }
    const RunResults* r = window_->project()->findRun(runId);
    AuditDialog dialog(QStringList{QString::fromStdString(r->run.task)}, window_);
    dialog.setWindowTitle(tr("Audit the fine-tuning of run %1 in one training").arg(runId));
    dialog.mechanismBox()->setCurrentIndex(dialog.mechanismBox()->findData(finetuneMechanismOf(r->run)));
    dialog.mechanismBox()->setEnabled(false);
    dialog.oneRunBox()->setChecked(true);
    dialog.oneRunBox()->setEnabled(false);
    dialog.seedBox()->setValue(static_cast<int>(r->run.seed));
    dialog.seedBox()->setEnabled(false);
    if (dialog.exec() != QDialog::Accepted) return;
    if (const QString e = startOneRunAuditOf(runId, dialog.settings()); !e.isEmpty()) showStatus(e, 15000);
}

QString RunActions::rerun(long long runId, std::optional<long long> newSeed) {
    if (window_->isReadOnly()) {
        const QString message = tr("This project is open read-only: runs are disabled.");
        showStatus(message);
        return message;
    }
    const ProjectSnapshot* project = window_->project();
    const RunResults* run = project ? project->findRun(runId) : nullptr;
    if (!run) {
        const QString message = tr("Re-run: the open project has no run %1.").arg(runId);
        showStatus(message);
        return message;
    }
    RunAction action;
    action.kind = RunKind::Rerun;
    action.parameters = window_->document()->values();
    action.rerun = run->run;
    action.rerunSeed = newSeed;
    return start(action);
}

std::vector<long long> RunActions::selectedRunIds() const {
    std::vector<long long> ids;
    for (QTreeWidgetItemIterator it(parts_.projectTree, QTreeWidgetItemIterator::Selected); *it; ++it) {
        const QVariant id = (*it)->data(0, Qt::UserRole);
        if (id.isValid()) ids.push_back(id.toLongLong());
    }
    return ids;
}

QString RunActions::compareRuns(const std::vector<long long>& runIds) {
    const ProjectSnapshot* project = window_->project();
    if (!project) return tr("Run comparison: no project is open.");
    auto comparison = workbench::compareRuns(*project, runIds);
    if (!comparison) return QString::fromStdString(comparison.error().message);
    auto* view = new RunComparisonView(*project, std::move(comparison).value());
    view->setObjectName("runComparisonView");
    QStringList ids;
    for (long long id : view->comparison().runIds) ids << QString::number(id);
    window_->addAnalysisTab(view, tr("Compare runs %1").arg(ids.join(", ")));
    return {};
}

QString RunActions::pinBaseline(long long runId) {
    const ProjectSnapshot* project = window_->project();
    if (!project || !project->findRun(runId)) return tr("Pin as baseline: the open project has no run %1.").arg(runId);
    setPinnedBaselineRunId(project->path, runId);
    window_->refreshProject();  // the views read the pin when they are rebuilt
    showStatus(tr("Run %1 is the baseline of comparisons.").arg(runId));
    return {};
}

QString RunActions::unpinBaseline() {
    const ProjectSnapshot* project = window_->project();
    if (!project) return tr("No project is open.");
    clearPinnedBaseline(project->path);
    window_->refreshProject();
    return {};
}

QMenu* RunActions::contextMenuForRun(long long runId) {
    auto* menu = new QMenu(window_);
    const ProjectSnapshot* project = window_->project();
    const bool writable = !window_->isReadOnly();
    QAction* details =
        menu->addAction(tr("Show run &details"), this, [this, runId] { window_->showRunDetails(runId); });
    details->setToolTip(tr("Its configuration, privacy ledger, metrics, λ, curves and models in the Run details tab"));
    menu->setDefaultAction(details);  // what double-click does
    menu->addSeparator();
    QAction* same = menu->addAction(tr("&Re-run with the same settings"), this, [this, runId] {
        if (QString e = rerun(runId); !e.isEmpty()) showStatus(e, 15000);
    });
    const RunResults* stored = project ? project->findRun(runId) : nullptr;
    const int suggestedSeed = stored ? static_cast<int>(stored->run.seed) + 1 : 0;
    QAction* newSeed = menu->addAction(tr("Re-run with a &new seed…"), this, [this, runId, suggestedSeed] {
        bool ok = false;
        const int seed = QInputDialog::getInt(window_, tr("Re-run with a new seed"), tr("Seed:"), suggestedSeed, 0,
                                              1000000000, 1, &ok);
        if (!ok) return;
        if (QString e = rerun(runId, seed); !e.isEmpty()) showStatus(e, 15000);
    });
    same->setEnabled(writable);
    newSeed->setEnabled(writable);
    QAction* oneRun =
        menu->addAction(tr("&Audit this fine-tuning (one run)…"), this, [this, runId] { runOneRunAuditDialog(runId); });
    const QString refusal = oneRunAuditRefusal(runId);
    oneRun->setEnabled(writable && refusal.isEmpty());
    oneRun->setToolTip(refusal.isEmpty() ? tr("Train this run's fine-tuning once more with canaries and bound its ε "
                                              "from the guesses (docs/AUDIT.md, \"One-run audits\")")
                                         : refusal);
    menu->addSeparator();
    const bool pinned = project && project->pinnedBaselineRunId() == runId;
    if (pinned)
        menu->addAction(tr("&Unpin baseline"), this, [this] { unpinBaseline(); });
    else
        menu->addAction(tr("&Pin as baseline"), this, [this, runId] { pinBaseline(runId); });
    menu->addAction(compareRuns_);
    compareRuns_->setEnabled(selectedRunIds().size() >= 2);
    return menu;
}

void RunActions::onTreeContextMenu(const QPoint& pos) {
    QTreeWidget* tree = parts_.projectTree;
    QTreeWidgetItem* item = tree->itemAt(pos);
    if (!item || !item->data(0, Qt::UserRole).isValid()) return;
    QMenu* menu = contextMenuForRun(item->data(0, Qt::UserRole).toLongLong());
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(tree->viewport()->mapToGlobal(pos));
}

void RunActions::runSweepDialog() {
    QStringList tasks;
    if (const ProjectSnapshot* project = window_->project())
        for (const auto& t : project->taskNames())
            if (!t.empty()) tasks << QString::fromStdString(t);
    EpsilonSweepDialog dialog(tasks, window_);
    dialog.offerCluster(clusterUnavailable());
    if (dialog.exec() != QDialog::Accepted) return;
    if (!dialog.runsOnCluster()) {
        if (const QString error = startEpsilonSweep(dialog.scope()); !error.isEmpty()) showStatus(error, 15000);
        return;
    }
    runSweepOnClusterDialog(dialog.scope());
}

QString RunActions::startPrivateSet(const PsgSettings& settings) {
    RunAction action;
    action.kind = RunKind::PrivateSet;
    action.parameters = window_->document()->values();
    action.psg = settings;
    return start(action);
}

void RunActions::runPsgDialog() {
    PsgDialog dialog(window_->document()->values().epsilon, window_);
    if (dialog.exec() != QDialog::Accepted) return;
    if (const QString error = startPrivateSet(dialog.settings()); !error.isEmpty()) showStatus(error, 15000);
}

void RunActions::runAuditDialog() {
    QStringList tasks;
    if (const ProjectSnapshot* project = window_->project())
        for (const auto& t : project->taskNames())  // the spec's tasks, then any a run names
            if (!t.empty()) tasks << QString::fromStdString(t);
    if (tasks.isEmpty()) {
        showStatus(tr("Audit: open a project with a named sensitive task first."));
        return;
    }
    AuditDialog dialog(tasks, window_);
    dialog.offerCluster(clusterUnavailable());
    if (dialog.exec() != QDialog::Accepted) return;
    if (!dialog.runsOnCluster()) {
        startAudit(dialog.settings());
        return;
    }
    const AuditSettings settings = dialog.settings();
    ClusterRunDialog where(
        tr("<b>Audit</b> of task %1: %2 runs per world, on Slurm.").arg(settings.task).arg(settings.runs),
        settings.runs, window_);
    if (where.exec() != QDialog::Accepted) return;
    if (QString e = startAuditOnCluster(settings, where.submission()); !e.isEmpty()) showStatus(e, 15000);
}

QList<ReportPlot> RunActions::reportPlots() const {
    QList<ReportPlot> plots;
    QTemporaryDir scratch;
    if (!scratch.isValid()) return plots;
    QTabWidget* tabs = parts_.analysisTabs;
    for (int t = 1; t < tabs->count(); ++t) {  // tab 0 is the calculator
        const QList<widgets::ChartWidget*> charts = tabs->widget(t)->findChildren<widgets::ChartWidget*>();
        for (int c = 0; c < charts.size(); ++c) {
            if (charts[c]->plottedTable().rows.isEmpty()) continue;  // a view with nothing to show yet
            // Exported at a fixed size, so the report does not depend on the window's layout.
            const QString file = scratch.filePath(QStringLiteral("plot-%1-%2.png").arg(t).arg(c));
            if (!charts[c]->exportTo(file, widgets::ExportFormat::Png, {900, 520, 1.0}).isEmpty()) continue;
            QImage image(file);
            if (image.isNull()) continue;
            // The tab's full title (its tooltip) heads the plot; the tab itself shows a short one.
            const QString heading = tabs->tabToolTip(t).isEmpty() ? tabs->tabText(t) : tabs->tabToolTip(t);
            const QString title = charts.size() == 1 ? heading : QStringLiteral("%1 (%2)").arg(heading).arg(c + 1);
            plots << ReportPlot{title, image};
        }
    }
    return plots;
}

QString RunActions::exportReport(const QString& htmlPath, bool withPdf) {
    const ProjectSnapshot* project = window_->project();
    if (!project) return tr("Report: no project is open.");
    ReportInput input{*project, window_->aboutInfo(), reportPlots(), {}};
    const QString error = writeReport(input, htmlPath, withPdf);
    showStatus(error.isEmpty() ? tr("Report written to %1").arg(htmlPath) : error, 15000);
    return error;
}

void RunActions::exportReportWithDialog() {
    if (!window_->project()) {
        QMessageBox::information(window_, tr("Export report"), tr("Open a project first."));
        return;
    }
    QString path = QFileDialog::getSaveFileName(window_, tr("Export report"), QString(), tr("HTML report (*.html)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".html");
    if (QString e = exportReport(path, true); !e.isEmpty())
        QMessageBox::warning(window_, tr("Export report"), e);
    else
        QMessageBox::information(window_, tr("Export report"), tr("Wrote %1 and %2.").arg(path, pdfPathFor(path)));
}

}  // namespace dpmix::workbench
