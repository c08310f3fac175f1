#pragma once
// Per-example privacy loss of a full-batch AdaMix-R run, evaluated on the realised trajectory
// (docs/ADAMIX.md, "Per-example privacy: an estimate"). Example i's contribution to step t's
// release has norm ‖ĥ_{i,t}‖ <= C_t against noise std σC_t, so its Rényi DP over the run is
//     RDP_i(α) = α · S_i / (2σ²),   S_i = Σ_t ‖ĥ_{i,t}‖² / C_t²  (<= T),
// the RDP of T Gaussian steps with noise multiplier σ·sqrt(T/S_i). ε_i is that converted with the
// run's own accountant and δ, so ε_i <= the dataset-level ε, with equality when S_i = T.
//
// It is an ESTIMATE, not a guarantee: S_i depends on the trajectory, which depends on the noise
// and on example i itself.
#include "engine/core/result.h"
#include "engine/privacy/accountant.h"

#include <Eigen/Dense>

namespace dpmix::adamix {

inline constexpr const char* kPerExampleEstimateCaveat =
    "estimate on the realised trajectory, not a guarantee: the gradient norms it uses depend on the noise drawn "
    "and on the example itself; the dataset-level epsilon is the guarantee";

struct PerExampleEpsilon {
    Eigen::VectorXd epsilon;      // ε_i per private example
    double datasetEpsilon = 0.0;  // ε of T steps at σ with the same accountant and δ
    double delta = 0.0;
    const char* caveat = kPerExampleEstimateCaveat;
};

/// ε_i for each entry S_i of `normRatioSums` (AdamixResult::normRatioSums) of a full-batch run of
/// `steps` steps at noise multiplier `sigma`. RDP: the Balle et al. 2020 conversion on the default
/// orders, exactly as the dataset-level ε. PRV: S_i is rounded UP to a grid of `prvGridPoints`
/// values in [0, T] (so the estimate never falls below the exact PRV value of S_i, and S_i = T is
/// on the grid) and each grid value is certified once.
Result<PerExampleEpsilon> estimatePerExampleEpsilon(const Eigen::VectorXd& normRatioSums, long long steps, double sigma,
                                                    double delta, privacy::Accountant accountant,
                                                    int prvGridPoints = 64);

}  // namespace dpmix::adamix
