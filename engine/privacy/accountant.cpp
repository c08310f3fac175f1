#include "engine/privacy/accountant.h"

#include "engine/privacy/prv_accountant.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

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

namespace {

/// The exact bit patterns of the parts and δ: equal keys give the identical double.
std::string prvKey(const std::vector<GaussianMechanism>& parts, double delta) {
    std::string key(sizeof(double) * (1 + 3 * parts.size()), '\0');
    char* out = key.data();
    auto put = [&](const auto& value) {
        std::memcpy(out, &value, sizeof value);
        out += sizeof value;
    };
    put(delta);
    for (const auto& p : parts) {
        put(p.q);
        put(p.sigma);
        put(p.steps);
    }
    return key;
}

/// One PRV certificate (≈ 1 ms to 1 s, depending on the grid) is asked for several times when a
/// project is read: the entry's own check, its split's total, the budget's groups and its
/// worst-placed person. A per-thread memo makes the repeats free, so a file whose (possibly
/// damaged) entries sit at the slow end of the range costs each distinct composition once.
double memoisedPrvCertifiedEpsilon(const std::vector<GaussianMechanism>& parts, double delta) {
    constexpr std::size_t kCapacity = 256;
    thread_local std::unordered_map<std::string, double> memo;
    std::string key = prvKey(parts, delta);
    if (const auto hit = memo.find(key); hit != memo.end()) return hit->second;
    const auto c = prvCertifiedEpsilon(parts, delta);
    // A composition PRV cannot certify (a grid beyond its limit) falls back to the RDP bound.
    const double epsilon = c ? c->epsilon : gaussianCompositionEpsilon(parts, delta).epsilon;
    if (memo.size() >= kCapacity) memo.clear();
    memo.emplace(std::move(key), epsilon);
    return epsilon;
}

}  // namespace

double certifiedGaussianEpsilon(Accountant accountant, const std::vector<GaussianMechanism>& parts, double delta) {
    if (accountant == Accountant::Prv) return memoisedPrvCertifiedEpsilon(parts, delta);
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
