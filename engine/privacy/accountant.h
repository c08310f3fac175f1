#pragma once
// The one seam where a run's choice of accountant (privacy.accountant in the spec, --accountant
// on the command line, the parameter panel's choice) turns into ε and σ: every mechanism that
// calibrates or records a subsampled Gaussian asks here, so the choice reaches every stage and
// its ledger entry (docs/PRIVACY.md, "Choosing the accountant").
#include "engine/core/result.h"
#include "engine/privacy/gaussian_accountant.h"

#include <string>
#include <vector>

namespace dpmix::privacy {

enum class Accountant {
    Rdp,  // Rényi DP (Mironov et al. 2019) with the Balle et al. 2020 conversion
    Prv,  // privacy loss random variables composed by FFT (Gopi et al. 2021), certified upper bound
};

std::string toString(Accountant accountant);
bool parseAccountant(const std::string& text, Accountant& out);

/// ε certified by `accountant` for the sequential composition of `parts` at δ. PRV certifies
/// min(PRV upper bound, RDP ε) — both are valid bounds — and falls back to the RDP ε when its
/// grid cannot be built (never a looser or an unproven value).
double certifiedGaussianEpsilon(Accountant accountant, const std::vector<GaussianMechanism>& parts, double delta);

struct AccountedSigma {
    double sigma = 0.0;    // the smallest σ (RDP: to 1e-10 relative; PRV: to 1e-4) meeting the target
    double epsilon = 0.0;  // what `accountant` certifies at σ (<= target)
};

/// σ calibration of one subsampled Gaussian with `accountant` (after earlier entries on the same
/// data: calibrateGaussianSigmaAfter in ledger.h).
Result<AccountedSigma> calibrateSigma(Accountant accountant, double targetEpsilon, double delta, double q,
                                      long long steps);

}  // namespace dpmix::privacy
