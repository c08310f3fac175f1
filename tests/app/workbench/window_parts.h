#pragma once
// The main window's parts as the tests reach them: by the object names the window gives them
// (MainWindow has no getter for its children). A missing part fails loudly, naming it; the Run
// details and Private set tabs are looked up among the open tabs (null when not open).
#include "app/workbench/main_window.h"
#include "app/workbench/runs/cluster_jobs_view.h"
#include "app/workbench/runs/job_runner.h"
#include "app/workbench/runs/stage_queue.h"
#include "app/workbench/views/private_set_view.h"
#include "app/workbench/views/run_details_view.h"
#include "widgets/budget_meter.h"
#include "widgets/job_list_widget.h"
#include "widgets/parameter_panel.h"
#include "widgets/privacy_calculator_panel.h"

#include <QAction>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTreeWidget>
#include <QtGlobal>

namespace dpmix::workbench::test {

template <typename T>
T* windowPart(const MainWindow& window, const char* name) {
    T* part = window.findChild<T*>(QString::fromLatin1(name));
    if (!part) qFatal("the main window has no part named %s", name);
    return part;
}

inline widgets::ParameterPanel* parameterPanel(const MainWindow& w) {
    return windowPart<widgets::ParameterPanel>(w, "parameterPanel");
}
inline widgets::PrivacyCalculatorPanel* calculatorPanel(const MainWindow& w) {
    return windowPart<widgets::PrivacyCalculatorPanel>(w, "calculatorPanel");
}
inline widgets::JobListWidget* jobList(const MainWindow& w) { return windowPart<widgets::JobListWidget>(w, "jobList"); }
inline widgets::BudgetMeter* budgetMeter(const MainWindow& w) {
    return windowPart<widgets::BudgetMeter>(w, "budgetMeter");
}
inline JobRunner* jobRunner(const MainWindow& w) { return windowPart<JobRunner>(w, "jobRunner"); }
inline StageQueue* stageQueue(const MainWindow& w) { return windowPart<StageQueue>(w, "stageQueue"); }
inline QTabWidget* analysisTabs(const MainWindow& w) { return windowPart<QTabWidget>(w, "analysisTabs"); }
inline QTreeWidget* projectTree(const MainWindow& w) { return windowPart<QTreeWidget>(w, "projectTree"); }
inline QLabel* trustBanner(const MainWindow& w) { return windowPart<QLabel>(w, "trustBanner"); }
inline QAction* exportReleaseAction(const MainWindow& w) { return windowPart<QAction>(w, "exportRelease"); }
inline QAction* runAction(const MainWindow& w) { return windowPart<QAction>(w, "runDpMixMin"); }
inline ClusterJobsView* clusterJobsView(const MainWindow& w) {
    return windowPart<ClusterJobsView>(w, "clusterJobsView");
}
inline QPlainTextEdit* logView(const MainWindow& w) { return windowPart<QPlainTextEdit>(w, "logView"); }

// The open analysis tab of type T named `name`, or null (a closed tab is removed at once and
// deleted later: it no longer counts).
template <typename T>
T* openTab(const MainWindow& w, const char* name) {
    QTabWidget* tabs = analysisTabs(w);
    for (int i = 0; i < tabs->count(); ++i)
        if (auto* page = qobject_cast<T*>(tabs->widget(i)); page && page->objectName() == QLatin1String(name))
            return page;
    return nullptr;
}
inline RunDetailsView* runDetailsView(const MainWindow& w) { return openTab<RunDetailsView>(w, "rundetailsView"); }
inline PrivateSetView* privateSetView(const MainWindow& w) { return openTab<PrivateSetView>(w, "privatesetView"); }

}  // namespace dpmix::workbench::test
