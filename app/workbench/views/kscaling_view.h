#pragma once
// The excess-error-vs-k experiment (docs/ALGORITHMS.md A.10, the paper's Appendix A.6): the excess
// error F(λ_DP) − F(λ*) against the number of sources k on log-log axes, mean over the one-vs-rest
// tasks with ± std error bars, a √k reference line and the fitted slope in the legend.
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/views/result_page_view.h"
#include "widgets/log_log_chart_widget.h"

#include <vector>

class QComboBox;

namespace dpmix::workbench {

/// Finished "k-scaling" runs that stored the "excess" curve, by run id.
std::vector<const RunResults*> kScalingRuns(const ProjectSnapshot& project);

struct KScalingChart {
    QList<widgets::LogLogSeries> series;  // the measured mean, then the √k reference (if any)
    QString note;                         // points a log axis cannot show, a missing fit
};

/// From one run: the stored "excess" curve (mean over tasks at each k) with error bars the
/// sample std of the "excess/<task>" curves at that k (none with fewer than two tasks); points
/// with excess <= 0 are left out (named in the note). The reference ∝ √k passes through the
/// first plotted point with k >= the run's fit threshold (config "min_k_for_fit", default 32) and
/// spans the plotted k. The legend gives the stored "slope" metric with its number of points.
KScalingChart kScalingChartData(const RunResults& run);

class KScalingView : public ResultPageView {
    Q_OBJECT

public:
    explicit KScalingView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* selector() const { return selector_; }
    widgets::LogLogChartWidget* chart() const { return chart_; }

private:
    void showRun(int index);
    ProjectSnapshot project_;
    std::vector<const RunResults*> runs_;
    QComboBox* selector_;
    widgets::LogLogChartWidget* chart_;
};

}  // namespace dpmix::workbench
