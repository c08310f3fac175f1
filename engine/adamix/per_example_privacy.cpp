#include "engine/adamix/per_example_privacy.h"

#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/rdp_conversion.h"
#include "engine/privacy/rdp_orders.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace dpmix::adamix {
namespace {

// ε of T Gaussian steps whose squared sensitivities (relative to the clip) sum to S, noise σ.
double rdpEpsilonOfRatioSum(double s, double sigma, double delta, const std::vector<double>& orders) {
    if (s <= 0.0) return 0.0;
    std::vector<double> rdp(orders.size());
    for (std::size_t j = 0; j < orders.size(); ++j) rdp[j] = orders[j] * s / (2.0 * sigma * sigma);
    return std::max(0.0, privacy::rdpToEpsilon(orders, rdp, delta).epsilon);
}

double prvEpsilonOfRatioSum(double s, long long steps, double sigma, double delta) {
    if (s <= 0.0) return 0.0;
    const double effectiveSigma = sigma * std::sqrt(static_cast<double>(steps) / s);
    return privacy::certifiedGaussianEpsilon(privacy::Accountant::Prv, {{1.0, effectiveSigma, steps}}, delta);
}

}  // namespace

Result<PerExampleEpsilon> estimatePerExampleEpsilon(const Eigen::VectorXd& normRatioSums, long long steps, double sigma,
                                                    double delta, privacy::Accountant accountant, int prvGridPoints) {
    if (steps < 1) return Error{"steps = " + std::to_string(steps) + " is out of range: expected >= 1", "steps"};
    if (!(sigma > 0.0) || !std::isfinite(sigma))
        return Error{"sigma must be a finite number > 0 for a per-example estimate (a zero-noise run has none)",
                     "sigma"};
    if (!(delta > 0.0 && delta < 1.0)) return Error{"delta is out of range: expected (0, 1)", "delta"};
    if (prvGridPoints < 2) return Error{"prv-grid-points is out of range: expected >= 2", "prv-grid-points"};
    const double T = static_cast<double>(steps);
    for (Eigen::Index i = 0; i < normRatioSums.size(); ++i)
        if (!(normRatioSums(i) >= 0.0 && normRatioSums(i) <= T * (1.0 + 1e-12)))
            return Error{"norm-ratio sum of example " + std::to_string(i) + " is outside [0, steps]",
                         "norm-ratio-sums"};

    PerExampleEpsilon out;
    out.delta = delta;
    out.epsilon.resize(normRatioSums.size());
    if (accountant == privacy::Accountant::Rdp) {
        const auto orders = privacy::defaultRdpOrders();
        out.datasetEpsilon = privacy::gaussianEpsilon({1.0, sigma, steps}, delta).epsilon;
        for (Eigen::Index i = 0; i < normRatioSums.size(); ++i)
            out.epsilon(i) = std::min(out.datasetEpsilon, rdpEpsilonOfRatioSum(normRatioSums(i), sigma, delta, orders));
        return out;
    }
    // PRV: certify each grid value of S once; example i takes the grid value at or above S_i.
    out.datasetEpsilon = privacy::certifiedGaussianEpsilon(accountant, {{1.0, sigma, steps}}, delta);
    const int cells = prvGridPoints - 1;
    std::vector<double> gridEpsilon(static_cast<std::size_t>(prvGridPoints), -1.0);
    for (Eigen::Index i = 0; i < normRatioSums.size(); ++i) {
        const double s = std::min(normRatioSums(i), T);
        const auto cell = static_cast<std::size_t>(std::ceil(s / T * cells - 1e-12));
        if (gridEpsilon[cell] < 0.0)
            gridEpsilon[cell] = cell == static_cast<std::size_t>(cells)
                                    ? out.datasetEpsilon
                                    : prvEpsilonOfRatioSum(T * static_cast<double>(cell) / cells, steps, sigma, delta);
        out.epsilon(i) = std::min(out.datasetEpsilon, gridEpsilon[cell]);
    }
    return out;
}

}  // namespace dpmix::adamix
