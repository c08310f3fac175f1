#pragma once
// (ε, δ) of T Poisson-subsampled applications of the Dirichlet mechanism, and the largest
// scale r* that meets a target ε (the paper's Table 7).
#include "engine/core/result.h"
#include "engine/privacy/rdp_conversion.h"

namespace dpmix::privacy {

struct DirichletMechanism {
    double alpha = 3.0;   // concentration offset α (> 0)
    double r = 0.1;       // scale on the softmax output, 0 < r < α
    double q = 1.0;       // Poisson sampling rate
    long long steps = 1;  // compositions
};

/// ε(δ) = min over integer orders 2 <= λ < 1 + α/r (capped at `maxOrder`) of
///   T ε_sub(λ) + log((λ−1)/λ) − (log δ + log λ)/(λ−1)   (Canonne, Kamath & Steinke 2020).
EpsilonAtOrder dirichletEpsilon(const DirichletMechanism& m, double delta, int maxOrder = 256);

struct DirichletCalibration {
    double r;        // r* (ε(r*) <= target)
    double epsilon;  // ε at r*
    double order;    // optimal order at r*
    int evaluations;
};

/// r* = sup{ r ∈ (0, α) : ε(r) <= target }, by Brent-type root finding (Boost's TOMS 748)
/// on ε(r) − target over [α/256, α(1 − 1e−9)], to 1e-12 relative, keeping the end of the
/// final bracket on the safe side (ε <= target). An error (the budget is too small) when even
/// r = α/256 exceeds the target.
Result<DirichletCalibration> calibrateDirichletR(double targetEpsilon, double delta, double alpha, double q,
                                                 long long steps, int maxOrder = 256);

}  // namespace dpmix::privacy
