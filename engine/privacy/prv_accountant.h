#pragma once
// The PRV accountant (Gopi, Lee & Wutschitz, NeurIPS 2021) for compositions of
// Poisson-subsampled Gaussian mechanisms: a certified upper bound and a lower bound on ε(δ),
// both for add/remove neighbours, and the σ calibration that uses it. The method, its error
// analysis and where it differs from Opacus's and Microsoft's code: docs/PRIVACY.md,
// "PRV accountant".
#include "engine/core/result.h"
#include "engine/privacy/gaussian_accountant.h"

#include <string>
#include <vector>

namespace dpmix::privacy {

/// How exact the PRV accountant is asked to be. The defaults are Opacus's.
struct PrvAccuracy {
    double epsilonError = 0.01;        // η: upper − true ε <= η (up to the δ error)
    double deltaErrorFraction = 1e-3;  // δ error = fraction·δ
    long long maxGridPoints = 1LL << 23;
};

struct PrvEpsilon {
    double upper = 0.0;     // certified: the composition is (upper, δ)-DP
    double lower = 0.0;     // the composition is not (ε, δ)-DP for any ε < lower
    double estimate = 0.0;  // ε(δ) of the discretised composition, without error bars
    double epsilonError = 0.0;
    double deltaError = 0.0;
    double mesh = 0.0;              // grid step of the privacy-loss axis
    long long gridPoints = 0;       // FFT length (the larger of the two directions)
    std::string limitingDirection;  // "remove" or "add": the neighbour relation that attains `upper`
};

/// ε(δ) of the sequential composition of `parts` (each steps × one subsampled Gaussian).
/// Errors (never exceptions) for parameters out of range, δ error not below δ, too many steps
/// for the error bound (Σ steps > 10⁶), or a grid beyond `maxGridPoints`.
Result<PrvEpsilon> prvEpsilon(const std::vector<GaussianMechanism>& parts, double delta,
                              const PrvAccuracy& accuracy = {});

/// What the PRV accountant certifies: min(PRV upper bound, RDP ε) — both are valid upper bounds,
/// and where RDP is within the PRV's error bar of the truth (few steps, large ε) it can be the
/// smaller. `rdpEpsilon` is the RDP ε of the same composition.
struct PrvCertificate {
    PrvEpsilon prv;
    double rdpEpsilon = 0.0;
    double epsilon = 0.0;  // min(prv.upper, rdpEpsilon)
};
Result<PrvCertificate> prvCertifiedEpsilon(const std::vector<GaussianMechanism>& parts, double delta,
                                           const PrvAccuracy& accuracy = {});

struct PrvSigmaCalibration {
    double sigma = 0.0;          // the smallest σ (to 1e-4 relative) whose certified ε <= target
    PrvCertificate certificate;  // at that σ
    double rdpSigma = 0.0;       // what the RDP accountant alone calibrates (>= sigma)
    int evaluations = 0;
};

/// σ calibration by the PRV accountant: never above the RDP calibration, since the certificate
/// takes the smaller of the two bounds.
Result<PrvSigmaCalibration> calibrateGaussianSigmaPrv(double targetEpsilon, double delta, double q, long long steps,
                                                      const PrvAccuracy& accuracy = {});

/// The same, after `prior` Gaussian parts on the same data (sequential composition).
Result<PrvSigmaCalibration> calibrateGaussianSigmaPrvAfter(const std::vector<GaussianMechanism>& prior,
                                                           double targetEpsilon, double delta, double q,
                                                           long long steps, const PrvAccuracy& accuracy = {});

}  // namespace dpmix::privacy
