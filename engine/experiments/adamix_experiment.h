#pragma once
// The AdaMix-R experiment grid (docs/ADAMIX.md, "The experiment"): on frozen features of a
// private task, for each seed, number of public shots k per class and number of private examples
// per class, the methods M0 paragon (non-private, all data), M1 public-only, M2 DP-GD from zero,
// M3 DP-GD warm start, M4 AdaMix-R and its ablations M4a/b/c, at each ε; the test error of each,
// its increase over the paragon, and for AdaMix-R the per-example ε_i estimates with their rank
// correlations with the training loss and with an isolation score.
//
// Torch-free (Eigen and std::thread). Deterministic from the seeds: the draws come from
// seeds::derive(drawSeed, stream, seed) and every DP cell's noise from a seeded
// RandomnessSource keyed by the cell, so the results do not depend on the thread count. Every DP
// cell uses seeded noise: the grid is a diagnostic (it is compared with a non-private paragon
// on sensitive data), never a release.
#include "engine/adamix/params.h"
#include "engine/core/cancellation.h"
#include "engine/core/mean_std.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/accountant.h"

#include <Eigen/Dense>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dpmix::experiments {

enum class AdamixMethod {
    Paragon,           // M0: non-private head on public shots + private data
    PublicOnly,        // M1: non-private head on the public shots only
    DpGd,              // M2: DP-GD from zero, fixed clip, no public data
    DpGdWarmStart,     // M3: DP-GD started at M1, fixed clip
    AdamixR,           // M4
    NoProjection,      // M4a
    FixedClip,         // M4b
    NoPublicGradient,  // M4c
};

/// M0 … M4c in table order.
const std::vector<AdamixMethod>& allAdamixMethods();
/// "paragon", "public-only", "dp-gd", "dp-gd-warm-start", "adamix-r", "adamix-r-no-projection",
/// "adamix-r-fixed-clip", "adamix-r-no-public-gradient".
const char* adamixMethodName(AdamixMethod m);
/// "M0", "M1", "M2", "M3", "M4", "M4a", "M4b", "M4c".
const char* adamixMethodLabel(AdamixMethod m);
/// A name or label (case-insensitive); the error (field "methods") lists the accepted ones.
Result<AdamixMethod> parseAdamixMethod(const std::string& text);
/// True for M2 … M4c (a DP run per ε).
bool isPrivateMethod(AdamixMethod m);
/// The AdaMix-R configuration a private method runs (adamix/params.h).
adamix::AdamixVariant variantOf(AdamixMethod m);

/// privatePerClass value meaning "every example of the class left after the shots".
inline constexpr long long kAllPrivate = 0;

struct AdamixGridOptions {
    std::vector<long long> shots{1, 5, 10};
    std::vector<long long> privatePerClass{50, 500, kAllPrivate};
    std::vector<double> epsilons{1.0, 3.0, 8.0};
    long long seeds = 3;  // draw seeds 0 … seeds−1
    std::vector<AdamixMethod> methods = allAdamixMethods();
    std::uint64_t drawSeed = 0;  // base of the draws and of every cell's noise
    // Fixed defaults (docs/ADAMIX.md), not tuned on private data.
    long long steps = 200;
    double stepSize = 1.0;
    double delta = 1e-5;
    double fixedClip = 1.0;  // C of M2, M3 and M4b
    privacy::Accountant accountant = privacy::Accountant::Rdp;
    int neighbours = 5;  // isolation score: mean distance to this many nearest same-class private points
    int threads = 0;     // 0: all cores
};

/// Errors name the option: shots, private-per-class, epsilons, seeds, methods, steps, eta,
/// delta, clip, neighbours.
Status checkAdamixGridOptions(const AdamixGridOptions& options);

/// One seed's draw: per class, the public shots (the first k are the k-shot set) and the private
/// examples (the first n are the n-per-class set; all of them for "all"), as rows of the pool
/// (or of the shots source).
struct AdamixSeedDraw {
    std::vector<std::vector<Eigen::Index>> shots;        // [class] draw order, max k of them
    std::vector<std::vector<Eigen::Index>> privateRows;  // [class] draw order
};

struct AdamixDrawPlan {
    int classes = 0;
    bool shotsFromPool = true;  // false: shots are rows of a separate public source
    long long maxShots = 0;
    std::vector<AdamixSeedDraw> seeds;
};

/// Draws the public shots and the private examples of every seed. `poolLabels`: the class of each
/// pool row (the sensitive train split). Shots come from the pool — and are then removed from the
/// private pool of that seed (the largest k's shots, so the private set is the same for every
/// k) — unless `shotLabels` (a separate public source with the same label space) is given.
/// Errors (field shots or private-per-class) name the class that has too few examples.
Result<AdamixDrawPlan> planAdamixDraws(const Eigen::VectorXi& poolLabels, const Eigen::VectorXi* shotLabels,
                                       const std::vector<std::string>& classNames, const AdamixGridOptions& options);

/// Pool rows (sorted, unique) that some seed uses as a shot or a private example; and the rows of
/// the shots source a separate-source plan uses. Features are needed for these only.
std::vector<Eigen::Index> poolRowsNeeded(const AdamixDrawPlan& plan);
std::vector<Eigen::Index> shotRowsNeeded(const AdamixDrawPlan& plan);

/// The features (raw, un-normalised: the grid normalises them) and labels of the grid.
struct AdamixGridInput {
    int classes = 0;
    Eigen::MatrixXd poolFeatures;  // pool rows × p (rows no draw uses may hold anything)
    Eigen::VectorXi poolLabels;
    std::vector<long long> poolSourceIndex;  // each pool row's index in the private source
    Eigen::MatrixXd shotFeatures;            // separate shots source only (else empty)
    Eigen::VectorXi shotLabels;
    std::vector<long long> shotSourceIndex;
    Eigen::MatrixXd testFeatures;
    Eigen::VectorXi testLabels;
};

/// One row of the table: a method at one (ε, shots, private per class, seed).
struct AdamixCell {
    AdamixMethod method = AdamixMethod::Paragon;
    std::optional<double> epsilon;  // target ε (DP methods only)
    long long shots = 0;
    long long privatePerClass = 0;  // kAllPrivate = all
    long long seed = 0;
    long long privateExamples = 0;  // n
    long long publicExamples = 0;   // m = shots · classes
    double testError = 0.0;
    double errorIncrease = 0.0;  // (err − err_M0) / err_M0 · 100; NaN when err_M0 = 0
    // The DP plan of the cell (private methods): full batch, T Gaussian steps at multiplier σ.
    double sigma = 0.0, delta = 0.0, q = 0.0, certifiedEpsilon = 0.0, clip = 0.0;
    long long steps = 0;
    long long perExample = -1;  // AdaMix-R cells: index into AdamixGridResult::perExample
};

/// AdaMix-R's per-example ε_i estimates of one cell (full batch; per_example_privacy.h) with the
/// training loss ℓ_i(θ_T) of the released head and the isolation score of each private example.
struct AdamixPerExample {
    long long cell = 0;
    std::vector<long long> sourceIndex;  // the example's index in the private source
    std::vector<int> labels;
    Eigen::VectorXd epsilon, isolation, loss;
    std::vector<double> quantileLevels;  // kEpsilonQuantiles
    std::vector<double> quantiles;       // of ε_i
    double datasetEpsilon = 0.0;
    double spearmanLoss = 0.0;  // NaN when either side is constant
    double spearmanIsolation = 0.0;
};

/// Levels of the stored ε_i quantiles: min, 5%, 25%, median, 75%, 95%, max.
const std::vector<double>& epsilonQuantileLevels();

/// Mean ± std over seeds of one (method, ε, shots, private per class).
struct AdamixSummaryRow {
    AdamixMethod method = AdamixMethod::Paragon;
    std::optional<double> epsilon;
    long long shots = 0, privatePerClass = 0;
    double privateExamples = 0.0;  // mean n over the seeds
    MeanStd testError, errorIncrease;
};

/// AdaMix-R's ε_i summary of one (ε, shots, private per class): each quantile, and the rank
/// correlations, as mean ± std over the seeds.
struct AdamixEpsilonSummary {
    double epsilon = 0.0;
    long long shots = 0, privatePerClass = 0;
    std::vector<MeanStd> quantiles;  // by epsilonQuantileLevels()
    MeanStd spearmanLoss, spearmanIsolation, fractionBelowHalf;
};

struct AdamixGridResult {
    std::vector<AdamixCell> cells;
    std::vector<AdamixPerExample> perExample;
    std::vector<AdamixSummaryRow> summary;
    std::vector<AdamixEpsilonSummary> epsilonSummary;
};

/// Runs the grid. Progress: stage "adamix-experiment", one unit per reference fit, isolation
/// score and DP run. Throws dpmix::Cancelled when the token is set.
Result<AdamixGridResult> runAdamixGrid(const AdamixGridInput& input, const AdamixDrawPlan& plan,
                                       const AdamixGridOptions& options, const ProgressCallback& progress = {},
                                       const CancellationToken& cancel = {});

/// A part of the grid: one seed's draws at one private-per-class value (its every shots value,
/// ε and method) — the unit the cluster executor runs (docs/CLUSTER.md, "AdaMix-R").
struct AdamixGridPart {
    long long seed = 0;
    std::size_t privateIndex = 0;  // into AdamixGridOptions::privatePerClass
};

/// Every part of the grid, seed-major.
std::vector<AdamixGridPart> adamixGridParts(const AdamixGridOptions& options);

/// The part's cells (in table order) and its AdaMix-R cells' per-example records, no summaries:
/// each cell equals, bit for bit, the same cell of runAdamixGrid (a cell depends on its draw, ε and
/// method only). A cell's `perExample` and a record's `cell` index this part's lists.
Result<AdamixGridResult> runAdamixGridPart(const AdamixGridInput& input, const AdamixDrawPlan& plan,
                                           const AdamixGridOptions& options, const AdamixGridPart& part,
                                           const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

/// Every part's result (in any order, each once) as runAdamixGrid returns the whole grid: cells
/// in table order, indices renumbered, summarised. Errors name a missing, repeated or foreign part.
Result<AdamixGridResult> assembleAdamixGrid(const std::vector<std::pair<AdamixGridPart, AdamixGridResult>>& parts,
                                            const AdamixGridOptions& options);

/// Fills result.summary and result.epsilonSummary from its cells and per-example records (the
/// options give the methods, ε, shots and private-per-class lists, in table order).
void summariseAdamixGrid(AdamixGridResult& result, const AdamixGridOptions& options);

// ---- the metrics, exposed for tests ----

/// (err − paragon) / paragon · 100; NaN when paragon = 0.
double errorIncreasePercent(double error, double paragonError);
/// Ranks 1 … n with ties given their average rank.
Eigen::VectorXd averageRanks(const Eigen::VectorXd& values);
/// Spearman's ρ: the Pearson correlation of the average ranks (ties handled); NaN when either
/// side is constant or sizes differ or n < 2.
double spearman(const Eigen::VectorXd& a, const Eigen::VectorXd& b);
/// For each row, the mean Euclidean distance to its `neighbours` nearest other rows of the same
/// label (all of them when the class has fewer; NaN for a class of one).
Eigen::VectorXd isolationScores(const Eigen::MatrixXd& points, const Eigen::VectorXi& labels, int neighbours);

}  // namespace dpmix::experiments
