#pragma once
// Choosing ρ, the share of the sensitive train set spent on mixture learning.
//
// A-priori guidance (docs/ALGORITHMS.md A.9 reconstruction — the paper's Appendix A.2 gives the
// idea, not usable constants; see docs/RHO_GUIDANCE.md). From the DP-SCO excess-risk bound for
// an L-Lipschitz convex loss on Δ_k with n = ρN examples:
//     E[F(λ_DP)] − F(λ*) ≲ c1·L/√n  +  c2·L·√(k·log(1/δ)) / (n·ε)
//                          statistical      privacy
// Requiring each term ≤ α/2:
//     n_stat = (2·c1·L/α)²,   n_priv = 2·c2·L·√(k·log(1/δ)) / (α·ε),   ρ = max(n_stat, n_priv)/N.
// c1, c2 are NOT known constants: calibrate them on a pilot run on public data
// (calibrateRhoConstants) or give them; the defaults (1, 1) only show the scaling.
#include "engine/audit/objective_builder.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/params.h"

#include <cstdint>
#include <vector>

namespace dpmix::experiments {

struct RhoConstants {
    double c1 = 1.0;          // statistical term
    double c2 = 1.0;          // privacy term
    bool calibrated = false;  // true when fitted on a pilot
};

struct RhoGuidanceInputs {
    long long trainExamples = 0;  // N: the sensitive train set split into A (ρN) and B
    double epsilon = 1.0;
    double delta = 1e-5;
    long long sources = 0;      // k
    double lipschitz = 0.0;     // L: the clip norm C bounds the clipped objective's slope
    double targetExcess = 0.0;  // α: tolerated excess F(λ_DP) − F(λ*)
    RhoConstants constants;
};

enum class RhoRegime { StatisticsLimited, PrivacyLimited };
const char* toString(RhoRegime r);

struct RhoGuidance {
    double nStatistical = 0.0;                        // examples for the statistical term to reach α/2
    double nPrivacy = 0.0;                            // ... for the privacy term
    double nRequired = 0.0;                           // max of the two
    double rho = 0.0;                                 // nRequired / N (may exceed 1: then α is out of reach)
    bool feasible = false;                            // rho <= 1
    RhoRegime regime = RhoRegime::StatisticsLimited;  // which term sets n
};

/// The bound's two terms at n examples (the model calibrateRhoConstants fits).
double statisticalTerm(double n, double lipschitz);                                               // L/√n
double privacyTerm(double n, double epsilon, double delta, long long sources, double lipschitz);  // L√(k log 1/δ)/(nε)

/// Errors name the field (train-examples, epsilon, delta, sources, lipschitz, target-excess, c1, c2).
Result<RhoGuidance> rhoGuidance(const RhoGuidanceInputs& in);

/// Where split A stops being privacy-limited: the n at which the privacy term equals the
/// statistical one, c1·L/√n = c2·L·√(k·log(1/δ))/(n·ε), i.e. n = (c2/c1)²·k·log(1/δ)/ε². L and α
/// cancel, so it needs only ε, δ, k and the constants' ratio. Below it the noise dominates λ's
/// error (more ε or a larger split A helps most); above it sampling does. The live panel shows
/// it as "sufficient ρ for this ε and k". Errors name the field.
struct PrivacyBalance {
    double examples = 0.0;  // n where the two terms are equal
    double rho = 0.0;       // examples / N (may exceed 1: the whole train set stays privacy-limited)
};
Result<PrivacyBalance> privacyBalance(long long trainExamples, double epsilon, double delta, long long sources,
                                      const RhoConstants& constants = {});

struct PilotPoint {
    double n = 0.0;  // examples of the pilot subset
    double epsilon = 0.0;
    double excess = 0.0;  // measured mean excess F(λ_DP) − F(λ*) (on the whole pilot set)
};

/// Non-negative weighted least squares of excess ≈ c1·statisticalTerm + c2·privacyTerm, with
/// weights 1/excess² (relative errors: the excesses span decades). Points with excess <= 0 are
/// skipped. Needs at least 2 usable points.
Result<RhoConstants> fitRhoConstants(const std::vector<PilotPoint>& points, double delta, long long sources,
                                     double lipschitz);

struct PilotOptions {
    std::vector<long long> sampleSizes;  // n values (each < pilot size)
    std::vector<double> epsilons{0.5, 1.0, 2.0};
    std::vector<std::uint64_t> seeds{0, 1, 2};
    int threads = 0;
};

struct PilotCalibration {
    std::vector<PilotPoint> points;  // mean over seeds per (n, ε)
    RhoConstants constants;
};

/// Calibration on PUBLIC pilot data (costs no privacy): for each n, ε and seed, DP-MixMin on a
/// random n-subset of the pilot; excess measured on the whole pilot set against its λ* (the
/// pilot set stands in for the population). `base`: DP-MixMin settings (ε, seed set here; give
/// q through expectedBatch, which must not exceed the smallest n). Lipschitz = base's clip norm.
/// Progress: stage "rho-calibration".
Result<PilotCalibration> calibrateRhoConstants(const audit::ObjectiveBuilder& pilot,
                                               const mixmin::DpMixMinParamsBuilder& base, double lipschitz,
                                               const PilotOptions& options, const ProgressCallback& progress = {},
                                               const CancellationToken& cancel = {});

}  // namespace dpmix::experiments
