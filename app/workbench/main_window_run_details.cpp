// The Run details tab in the main window: opened on a run of the project tree (double-click,
// Enter, context menu), following the tree's current run while open, and kept up to date when
// the project is reread.
#include "app/workbench/main_window.h"

#include "app/workbench/views/run_details_view.h"

#include <QTabBar>
#include <QTabWidget>
#include <QTreeWidget>

#include <algorithm>

namespace dpmix::workbench {
namespace {

std::optional<long long> runIdOf(const QTreeWidgetItem* item) {
    if (!item || !item->data(0, Qt::UserRole).isValid()) return std::nullopt;
    bool ok = false;
    const long long id = item->data(0, Qt::UserRole).toLongLong(&ok);
    return ok ? std::optional<long long>(id) : std::nullopt;
}

/// The run a reviewer most likely wants when none is chosen: the newest finished DP-MixMin run,
/// else the newest run.
std::optional<long long> defaultRun(const ProjectSnapshot& project) {
    for (auto it = project.runs.rbegin(); it != project.runs.rend(); ++it)
        if (isMethod(it->run, methods::Method::DpMixMin) && it->done()) return it->run.id;
    if (!project.runs.empty()) return project.runs.back().run.id;
    return std::nullopt;
}

}  // namespace

void MainWindow::connectRunDetails() {
    connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        if (const auto id = runIdOf(item)) showRunDetails(*id);
    });
    connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        const auto id = runIdOf(item);
        if (id && project_ && runDetailsView()) runDetails_->showRun(*project_, *id);
    });
}

RunDetailsView* MainWindow::runDetailsView() const {
    // A closed tab is removed at once and deleted later: it no longer counts as open.
    return runDetails_ && tabs_->indexOf(runDetails_) >= 0 ? runDetails_.data() : nullptr;
}

RunDetailsView* MainWindow::showRunDetails(std::optional<long long> runId) {
    if (!runId) runId = runIdOf(tree_->currentItem());
    if (!runDetailsView()) {
        runDetails_ = new RunDetailsView;
        runDetails_->setObjectName("rundetailsView");
        int after = 0;
        for (QWidget* page : resultTabs_) after = std::max(after, tabs_->indexOf(page));
        tabs_->insertTab(after + 1, runDetails_, tr("Run details"));
    }
    if (!runId && runDetails_->runId() && project_ && runDetails_->projectPath() == project_->path)
        runId = runDetails_->runId();
    if (!runId && project_) runId = defaultRun(*project_);
    if (project_ && runId)
        runDetails_->showRun(*project_, *runId);
    else
        runDetails_->showEmpty();
    tabs_->setCurrentWidget(runDetails_);
    return runDetails_;
}

void MainWindow::refreshRunDetails() {
    RunDetailsView* view = runDetailsView();
    if (!view) return;
    if (project_ && view->runId() && view->projectPath() == project_->path)
        view->showRun(*project_, *view->runId());
    else
        view->showEmpty();
    // Rebuilt result tabs are appended: the Run details tab stays after them.
    int after = 0;
    for (QWidget* page : resultTabs_) after = std::max(after, tabs_->indexOf(page));
    if (const int at = tabs_->indexOf(view); at >= 0 && at < after) tabs_->tabBar()->moveTab(at, after);
}

}  // namespace dpmix::workbench
