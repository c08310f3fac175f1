#pragma once
// Turns a project snapshot into the numbers the result views plot (mean and standard deviation
// over seeds), kept apart from the widgets so tests can check them directly.
#include "app/workbench/project/project_snapshot.h"
#include "widgets/bar_chart_widget.h"
#include "widgets/line_chart_widget.h"

#include <optional>

namespace dpmix::workbench {

/// A (task, ε) pair with at least one finished DP-MixMin run.
struct LambdaSelection {
    std::string task;
    double epsilon = 0.0;
    QString label() const;
};
std::vector<LambdaSelection> lambdaSelections(const ProjectSnapshot& project);

/// Grouped bars over the k components: λ_DP (DP-MixMin runs at ε), λ* (non-private MixMin),
/// uniform and random search for `task`; values are means over seeds, error bars the sample
/// standard deviation when there are several seeds. DP-MixMin's release(s) and its seeded runs
/// at the same ε are two bars (" — release", " — seeded, not a release"), never one average.
/// Legend entries carry the mean cosine similarity and L1 distance to λ*. A study with several
/// public sources groups the bars by source, each group followed by the source's total λ mass
/// ("Σ source").
widgets::BarChartData lambdaChartData(const ProjectSnapshot& project, const LambdaSelection& selection);

/// The DP-MixMin runs that stored λ iterates ("lambda/<component>" curves).
std::vector<const RunResults*> trajectoryRuns(const ProjectSnapshot& project);
/// "#id Method · task · ε = … · seed s"; a run whose λ was chosen without DP reads
/// "ε = ∞, non-private baseline", whatever ε its fine-tuning spent.
QString runLabel(const project::RunRecord& run);
/// The method's label, with ", ε = ∞" for a non-private baseline (λ*, random search), so a chart
/// at one ε never shows a non-private method as if it had that ε.
QString honestMethodLabel(const std::string& method);
/// One line per component: its weight λ_j at each stored step.
QList<widgets::LineSeries> trajectorySeries(const RunResults& run);

/// Cosine similarity to λ* against ε: DP-MixMin per ε (mean ± std over seeds and the chosen
/// task, or all tasks when `task` is empty), the ε-free baselines as flat lines over the same
/// ε range; the ± std band is clipped to the cosine's range [-1, 1]. Empty when no DP-MixMin
/// run has finished.
QList<widgets::LineSeries> tradeoffSeries(const ProjectSnapshot& project, const std::optional<std::string>& task);
/// The distinct ε of finished DP-MixMin runs, ascending.
std::vector<double> runEpsilons(const ProjectSnapshot& project);

/// Mean and sample standard deviation (0 for one value).
std::pair<double, double> meanAndStd(const std::vector<double>& values);

}  // namespace dpmix::workbench
