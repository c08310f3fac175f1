#include "engine/privacy/accountant.h"

#include "engine/privacy/gaussian_rdp.h"
#include "engine/privacy/prv_accountant.h"
#include "engine/privacy/rdp_conversion.h"
#include "engine/privacy/rdp_orders.h"

#include <algorithm>

namespace dpmix::privacy {
namespace {

double rdpEpsilon(const std::vector<GaussianMechanism>& parts, double delta) {
    if (parts.size() == 1) return gaussianEpsilon(parts.front(), delta).epsilon;
    const auto& orders = defaultRdpOrders();
    std::vector<double> rdp(orders.size(), 0.0);
    for (const auto& p : parts) {
        const auto curve = subsampledGaussianRdp(p.q, p.sigma, p.steps, orders);
        for (std::size_t i = 0; i < rdp.size(); ++i) rdp[i] += curve[i];
    }
    return rdpToEpsilon(orders, rdp, delta).epsilon;
}

}  // namespace

std::string toString(Accountant accountant) { return accountant == Accountant::Prv ? "prv" : "rdp"; }

bool parseAccountant(const std::string& text, Accountant& out) {
    if (text == "rdp") { out = Accountant::Rdp; return true; }
    if (text == "prv") { out = Accountant::Prv; return true; }
    return false;
}

double certifiedGaussianEpsilon(Accountant accountant, const std::vector<GaussianMechanism>& parts, double delta) {
    const double rdp = rdpEpsilon(parts, delta);
    if (accountant == Accountant::Rdp) return rdp;
    const auto prv = prvEpsilon(parts, delta);
    return prv ? std::min(prv->upper, rdp) : rdp;
}

Result<AccountedSigma> calibrateSigma(Accountant accountant, double targetEpsilon, double delta, double q,
                                      long long steps) {
    if (accountant == Accountant::Prv) {
        auto c = calibrateGaussianSigmaPrv(targetEpsilon, delta, q, steps);
        if (!c) return c.error();
        return AccountedSigma{c->sigma, c->certificate.epsilon};
    }
    auto c = calibrateGaussianSigma(targetEpsilon, delta, q, steps);
    if (!c) return c.error();
    return AccountedSigma{c->sigma, c->epsilon};
}

}  // namespace dpmix::privacy
