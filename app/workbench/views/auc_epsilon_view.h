#pragma once
// Test AUC against ε, one line per method (the teacher's plot): for each ε a method was
// fine-tuned at, the mean over seeds of its per-seed macro AUC over the chosen tasks, with a
// ± one-std band over seeds. The table of `dpmix results` as a curve.
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/views/result_page_view.h"
#include "widgets/line_chart_widget.h"

#include <optional>
#include <string>

class QAction;
class QComboBox;

namespace dpmix::workbench {

struct AucEpsilonCurves {
    QList<widgets::LineSeries> series;  // paper order; a method with one ε is a single point
    int epsilons = 0;                   // distinct ε over every method
    bool nonPrivateReferences = false;  // λ* or Random Search is among the lines
};

/// The lines at `task` (the macro over every task when unset). One summary per (ε, method) as
/// `dpmix results` computes it (engine/project/result_summary.h): per seed the mean over its
/// tasks, then mean ± sample std over seeds; the band only where some ε has two seeds or more.
AucEpsilonCurves aucEpsilonCurves(const ProjectSnapshot& project, const std::optional<std::string>& task);

class AucEpsilonView : public ResultPageView {
    Q_OBJECT

public:
    explicit AucEpsilonView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* taskSelector() const { return task_; }
    widgets::LineChartWidget* chart() const { return chart_; }
    /// Whether the project holds any downstream test AUC (at any ε): the window shows the tab
    /// only then, so a study without fine-tuned models keeps its tab bar short.
    bool hasAucResults() const { return hasAucResults_; }

private:
    void refresh();
    ProjectSnapshot project_;
    QComboBox* task_;
    widgets::LineChartWidget* chart_;
    bool hasAucResults_ = false;
};

}  // namespace dpmix::workbench
