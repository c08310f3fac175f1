#pragma once
// What the AdaMix-R views draw (docs/ADAMIX.md, "The experiment"): the error increase over the
// non-private paragon by method and ε, and the per-example privacy-loss estimates ε_i of AdaMix-R
// runs. Plain values, filled from a project's stored experiment runs; the chart data builders
// below are pure functions so the views' numbers can be tested without a window.
#include "widgets/bar_chart_widget.h"

#include <QString>

#include <cmath>
#include <limits>
#include <vector>

namespace dpmix::workbench {

/// One trained head of the experiment's grid.
struct AdamixCell {
    QString method;  // "adamix-r", "dp-gd-warm-start", "public-only", "paragon", ...
    double epsilon = std::numeric_limits<double>::infinity();  // +inf: no privacy (paragon, public-only)
    long long shots = 0;                                       // public examples per class
    long long perClass = 0;                                    // private examples per class; 0 = all
    long long seed = 0;
    double testError = std::numeric_limits<double>::quiet_NaN();      // fraction in [0, 1]
    double errorIncrease = std::numeric_limits<double>::quiet_NaN();  // % over the paragon of the same seed
};

/// One private example's estimated privacy loss in one AdaMix-R run.
struct AdamixExampleEstimate {
    long long sourceIndex = -1;  // index in the private source (for its image)
    QString label;               // its class
    double epsilon = 0.0;        // ε_i: an estimate on the realised trajectory, not a guarantee
    double isolation = std::numeric_limits<double>::quiet_NaN();  // mean distance to same-class neighbours
    double loss = std::numeric_limits<double>::quiet_NaN();       // training loss of the released head
};

/// The per-example estimates of one AdaMix-R run (one ε, shots, private count and seed).
struct AdamixEstimates {
    double epsilon = 0.0;  // the dataset-level guarantee of that run
    double delta = 0.0;
    long long shots = 0;
    long long perClass = 0;
    long long seed = 0;
    std::vector<AdamixExampleEstimate> examples;
    double spearmanIsolation = std::numeric_limits<double>::quiet_NaN();
    double spearmanLoss = std::numeric_limits<double>::quiet_NaN();
    long long record = -1;  // which per-example record of the stored run (for reading it later)
};

/// One stored experiment.
struct AdamixExperiment {
    long long runId = 0;
    QString title;          // for the run selector
    QString privateSource;  // the spec's name of the source the private examples come from
    std::vector<AdamixCell> cells;
    std::vector<AdamixEstimates> estimates;
    bool examplesLoaded = true;  // false: the estimates' examples are still in the project file
};

/// The (shots, private per class) settings present in the experiment, sorted.
std::vector<std::pair<long long, long long>> adamixSettings(const AdamixExperiment& experiment);

/// "5 shots, 50 private per class" / "…, all private".
QString adamixSettingLabel(long long shots, long long perClass);

/// For people: "AdaMix-R", "DP-GD (warm start)", "Public only (few-shot)", ...
QString adamixMethodLabel(const QString& method);

/// The error increase over the paragon at one setting: grouped bars, one category per ε
/// (ascending), one series per private method (AdaMix-R first, then its ablations, then the DP-GD
/// baselines), the mean over seeds with ± the sample std (none with one seed); the tooltip gives
/// the test error. The public-only head uses no private data, so it is one reference line (its
/// mean increase) rather than bars. `note` names the paragon's test error and any method
/// missing at some ε.
struct AdamixIncreaseChart {
    widgets::BarChartData data;
    QString note;
};
AdamixIncreaseChart adamixIncreaseChart(const AdamixExperiment& experiment, long long shots, long long perClass);

/// A histogram of ε_i over `bins` equal bins spanning [0, the run's dataset-level ε] (values
/// are never above it; one that were would get a bin of its own so it cannot hide). The note
/// gives the quantiles, the share of examples below half the guarantee and the rank
/// correlations, and says that ε_i is an estimate.
struct AdamixHistogram {
    widgets::BarChartData data;
    QString note;
};
AdamixHistogram adamixEpsilonHistogram(const AdamixEstimates& estimates, int bins = 20);

/// The linear-interpolation quantile q in [0, 1] of `values` (NaN when empty).
double quantileOf(std::vector<double> values, double q);

/// The `count` examples with the highest ε_i (descending) and the lowest (ascending); ties are
/// broken by source index so the picture is the same on every machine.
struct AdamixExtremes {
    std::vector<AdamixExampleEstimate> highest;
    std::vector<AdamixExampleEstimate> lowest;
};
AdamixExtremes adamixExtremes(const AdamixEstimates& estimates, int count);

}  // namespace dpmix::workbench
