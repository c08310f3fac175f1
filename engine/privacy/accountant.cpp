#include "engine/privacy/accountant.h"

#include "engine/privacy/prv_accountant.h"

#include <algorithm>

namespace dpmix::privacy {

std::string toString(Accountant accountant) { return accountant == Accountant::Prv ? "prv" : "rdp"; }

bool parseAccountant(const std::string& text, Accountant& out) {
    if (text == "rdp") {
        out = Accountant::Rdp;
        return true;
    }
    if (text == "prv") {
        out = Accountant::Prv;
        return true;
    }
    return false;
}

double certifiedGaussianEpsilon(Accountant accountant, const std::vector<GaussianMechanism>& parts, double delta) {
    if (accountant == Accountant::Prv)
        if (const auto c = prvCertifiedEpsilon(parts, delta)) return c->epsilon;
    return gaussianCompositionEpsilon(parts, delta).epsilon;
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
