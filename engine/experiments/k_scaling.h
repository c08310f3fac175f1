#pragma once
// Excess error of DP-MixMin vs the number of sources k (docs/ALGORITHMS.md A.10, paper
// Appendix A.6). Sources are subset tasks of a 10-class proxy (subset_sources.h). For each k:
// non-private λ* and, per seed, DP-MixMin (ε from `base`, normally 1) on the same sensitive
// examples; excess α = F(λ_DP) − F(λ*). Then the log-log slope of mean α vs k for k ≥ minK
// (the paper: 0.49 for k ≥ 32, matching √k).
#include "engine/core/cancellation.h"
#include "engine/core/mean_std.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/params.h"

#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::experiments {

struct SlopeFit {
    double slope = 0.0;      // b in log α = a + b log k
    double intercept = 0.0;  // a
    double rSquared = 0.0;
    long long points = 0;  // points used (k >= minK and α > 0)
};

/// Least squares of log y on log x over the points with x >= minX and y > 0 (α ≤ 0 has no
/// logarithm: such points are skipped, and counted out of `points`). Needs 2 distinct x.
Result<SlopeFit> fitLogLogSlope(const std::vector<double>& x, const std::vector<double>& y, double minX = 32.0);

struct KScalingOptions {
    std::vector<long long> ks{2, 4, 8, 16, 32, 64, 128, 256, 512};
    std::vector<std::uint64_t> seeds{0, 1, 2, 3, 4};
    std::uint64_t subsetSeed = 0;  // which subsets become the sources
    double minKForFit = 32.0;
    double gapTolerance = 1e-8;  // of the non-private solve: α is exact to this
    int threads = 0;
};

struct KScalingRow {
    long long k = 0;
    std::vector<std::uint32_t> subsets;  // the k sources' class masks
    double nonPrivateLoss = 0.0;         // F(λ*)
    double nonPrivateGap = 0.0;          // its Frank–Wolfe certificate
    std::vector<double> excess;          // per seed: F(λ_DP) − F(λ*)
    MeanStd meanExcess;
};

struct KScalingResult {
    std::vector<KScalingRow> rows;
    SlopeFit fit;         // over the rows' mean excess
    bool fitted = false;  // false when fewer than 2 usable rows (fitError says why)
    std::string fitError;
};

/// `classProbabilities`: n × C proxy class probabilities on the sensitive examples; `labels`:
/// their one-vs-rest labels (0/1). `base`: every DP-MixMin setting (ε included); the seed is
/// set per run. Progress: stage "k-scaling", one unit per (k, seed) run.
Result<KScalingResult> runKScaling(const Eigen::MatrixXd& classProbabilities, const std::vector<int>& labels,
                                   const mixmin::DpMixMinParamsBuilder& base, const KScalingOptions& options,
                                   const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::experiments
