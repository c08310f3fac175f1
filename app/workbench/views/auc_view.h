#pragma once
// Per-class test AUC of the downstream models (the paper's Figure 3): grouped bars per
// task, one bar per method, mean ± sample std over seeds, macro AUC per method; or the relative
// gain over Random Init, (AUC − AUC_RandomInit) / AUC_RandomInit in %, paired by seed.
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/views/result_page_view.h"
#include "widgets/bar_chart_widget.h"

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;

namespace dpmix::workbench {

/// The run's downstream test AUC (stored with the task as class name), or NaN.
double downstreamTestAuc(const RunResults& run);

/// The distinct ε of finished runs with a "test-auc" metric, ascending. Runs without an ε are
/// shown at every ε; when no run has an ε the list is empty and the view shows them all.
std::vector<double> aucEpsilons(const ProjectSnapshot& project);

enum class AucMode { Absolute, GainOverRandomInit };

struct AucChart {
    widgets::BarChartData data;  // categories: tasks; series: methods
    QString title;
    bool hasRandomInit = false;  // a Random Init run exists at this ε (the gain mode needs it)
};

/// Bars at `epsilon` (all runs when unset). Absolute: per task and method the mean over seeds
/// (several runs of one seed are averaged first), error bars the sample std over seeds, the
/// legend's macro AUC the mean of the task means. Gain: per seed (AUC − AUC_RI)/AUC_RI · 100 for
/// the seeds both have, then mean ± std over those seeds; Random Init itself is not a bar.
/// A task a method has no value for is NaN (no bar).
AucChart aucChartData(const ProjectSnapshot& project, std::optional<double> epsilon, AucMode mode);

class AucView : public ResultPageView {
    Q_OBJECT

public:
    explicit AucView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* epsilonSelector() const { return epsilon_; }
    QCheckBox* gainToggle() const { return gain_; }
    widgets::BarChartWidget* chart() const { return chart_; }

private:
    void refresh();
    ProjectSnapshot project_;
    std::vector<double> epsilons_;
    QComboBox* epsilon_;
    QCheckBox* gain_;
    widgets::BarChartWidget* chart_;
};

}  // namespace dpmix::workbench
