#include "engine/privacy/gaussian_accountant.h"

#include "engine/privacy/gaussian_rdp.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/rdp_orders.h"

#include <string>

namespace dpmix::privacy {

EpsilonAtOrder gaussianEpsilon(const GaussianMechanism& m, double delta, const std::vector<double>& orders) {
    const std::vector<double>& grid = orders.empty() ? defaultRdpOrders() : orders;
    return rdpToEpsilon(grid, subsampledGaussianRdp(m.q, m.sigma, m.steps, grid), delta);
}

EpsilonAtOrder gaussianCompositionEpsilon(const std::vector<GaussianMechanism>& parts, double delta) {
    if (parts.size() == 1) return gaussianEpsilon(parts.front(), delta);
    const auto& orders = defaultRdpOrders();
    std::vector<double> rdp(orders.size(), 0.0);
    for (const auto& p : parts) {
        const auto curve = subsampledGaussianRdp(p.q, p.sigma, p.steps, orders);
        for (std::size_t i = 0; i < rdp.size(); ++i) rdp[i] += curve[i];
    }
    return rdpToEpsilon(orders, rdp, delta);
}

Result<SigmaCalibration> calibrateGaussianSigma(double targetEpsilon, double delta, double q, long long steps,
                                                const std::vector<double>& orders) {
    const std::vector<double> grid = orders.empty() ? defaultRdpOrders() : orders;
    int evaluations = 0;
    auto eps = [&](double sigma) {
        ++evaluations;
        return rdpToEpsilon(grid, subsampledGaussianRdp(q, sigma, steps, grid), delta);
    };
    constexpr double kMaxSigma = 1e6;
    double lo = 0.0;  // ε(0) = ∞ > target
    double hi = 1.0;
    EpsilonAtOrder atHi = eps(hi);
    while (atHi.epsilon > targetEpsilon) {
        lo = hi;
        hi *= 2.0;
        if (hi > kMaxSigma)
            return Error{"no noise multiplier up to 1e6 reaches epsilon " + formatNumber(targetEpsilon) +
                         " with q = " + formatNumber(q) + ", " + std::to_string(steps) +
                         " steps and delta = " + formatNumber(delta) + ": the privacy budget is too small"};
        atHi = eps(hi);
    }
    // ε(σ) is non-increasing in σ (each order's RDP is), so bisection keeps ε(hi) <= target.
    while (hi - lo > 1e-10 * hi) {
        const double mid = 0.5 * (lo + hi);
        const EpsilonAtOrder atMid = eps(mid);
        if (atMid.epsilon <= targetEpsilon) {
            hi = mid;
            atHi = atMid;
        } else {
            lo = mid;
        }
    }
    return SigmaCalibration{hi, atHi.epsilon, atHi.order, evaluations};
}

}  // namespace dpmix::privacy
