#pragma once
// The canary audits of the mixture step (docs/AUDIT.md): per task, the empirical ε lower bound
// (Clopper–Pearson, 95%) of the natural and max-clip canaries and their no-noise controls as
// grouped bars, with the claimed ε as a horizontal reference line.
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/views/result_page_view.h"
#include "widgets/bar_chart_widget.h"

#include <optional>
#include <vector>

class QComboBox;

namespace dpmix::workbench {

/// The distinct claimed ε of finished private audits (audit runs with an ε), ascending.
std::vector<double> auditEpsilons(const ProjectSnapshot& project);

/// Bars per task: one series per audit kind ("natural", "max-clip", "max-clip-raise", then their
/// "-no-noise" controls, then any other name), the private audits at `claimedEpsilon` (none:
/// only the controls) plus every no-noise control. A bar is the mean ε_LB of the matching audits
/// (± sample std when there are several); its tooltip gives FPR, FNR and the runs. With a
/// claimed ε the reference line "claimed ε = …" is drawn; each bar is labelled with its value.
/// Empty when there are no audits.
widgets::BarChartData auditChartData(const ProjectSnapshot& project, std::optional<double> claimedEpsilon);

/// Legend name of an audit kind, e.g. "max-clip-no-noise" → "max-clip canary, no noise (control)".
QString auditKindLabel(const std::string& name);

class AuditView : public ResultPageView {
    Q_OBJECT

public:
    explicit AuditView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* epsilonSelector() const { return epsilon_; }
    widgets::BarChartWidget* chart() const { return chart_; }

private:
    void refresh();
    ProjectSnapshot project_;
    std::vector<double> epsilons_;
    QComboBox* epsilon_;
    widgets::BarChartWidget* chart_;
};

}  // namespace dpmix::workbench
