#pragma once
// (ε, δ) of T compositions of the Poisson-subsampled Gaussian mechanism, and the inverse:
// the noise multiplier that meets a target ε. Inputs are assumed valid (see parameters.h for
// the validating builders that turn user input into these structs).
#include "engine/core/result.h"
#include "engine/privacy/rdp_conversion.h"

#include <vector>

namespace dpmix::privacy {

struct GaussianMechanism {
    double q = 1.0;       // Poisson sampling rate (per example, or per user)
    double sigma = 1.0;   // noise multiplier: noise std / clip norm
    long long steps = 1;  // compositions
};

/// ε(δ) by RDP with the Balle et al. 2020 conversion over `orders`
/// (defaultRdpOrders() when empty).
EpsilonAtOrder gaussianEpsilon(const GaussianMechanism& m, double delta, const std::vector<double>& orders = {});

/// ε(δ) by RDP of the sequential composition of `parts` (their curves added on the default
/// grid, converted once).
EpsilonAtOrder gaussianCompositionEpsilon(const std::vector<GaussianMechanism>& parts, double delta);

struct SigmaCalibration {
    double sigma;     // the smallest σ (to relative 1e-10) whose ε <= target
    double epsilon;   // ε at that σ (<= target)
    double order;     // optimal order at that σ
    int evaluations;  // accountant evaluations the search used
};

/// Smallest σ with ε(σ) <= targetEpsilon for (δ, q, steps). Doubles σ from 1 until the
/// target is met, then bisects to a relative bracket width of 1e-10 — far tighter than
/// Opacus's get_noise_multiplier (0.01 in ε), so the σ returned is never larger than its.
/// An error (the budget is too small for these q, steps and δ) when even σ = 1e6 cannot meet
/// the target: a budget a user can type, so no exception.
Result<SigmaCalibration> calibrateGaussianSigma(double targetEpsilon, double delta, double q, long long steps,
                                                const std::vector<double>& orders = {});

}  // namespace dpmix::privacy
