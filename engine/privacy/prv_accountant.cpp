#include "engine/privacy/prv_accountant.h"

#include "engine/privacy/gaussian_prv.h"
#include "engine/privacy/gaussian_rdp.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/prv_composition.h"
#include "engine/privacy/rdp_conversion.h"
#include "engine/privacy/rdp_orders.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <utility>

namespace dpmix::privacy {
namespace {

// Σ steps above which k·kPrvMeanAccuracy eats a noticeable part of the ε error (docs/PRIVACY.md).
constexpr long long kMaxPrvSteps = 1'000'000;

Status checkParts(const std::vector<GaussianMechanism>& parts, double delta, const PrvAccuracy& accuracy) {
    if (parts.empty()) return Error{"the PRV accountant needs at least one mechanism to compose"};
    long long total = 0;
    for (const auto& p : parts) {
        if (auto e = checkSamplingRate("q", p.q)) return e;
        if (auto e = checkPositive("sigma", p.sigma)) return e;
        if (auto e = checkSteps("steps", p.steps)) return e;
        if (p.steps > kMaxPrvSteps - total)
            return Error{"steps = " + std::to_string(p.steps) + " is out of range for the PRV accountant: at most " +
                             std::to_string(kMaxPrvSteps) + " steps in one composition (use the RDP accountant)",
                         "steps"};
        total += p.steps;
    }
    if (auto e = checkDelta("delta", delta)) return e;
    if (!(accuracy.epsilonError > 0.0 && accuracy.epsilonError <= 1.0))
        return Error{"epsilon error = " + formatNumber(accuracy.epsilonError) + " is out of range: expected (0, 1]",
                     "epsilon-error"};
    if (!(accuracy.deltaErrorFraction > 0.0 && accuracy.deltaErrorFraction <= 0.5))
        return Error{"delta error fraction = " + formatNumber(accuracy.deltaErrorFraction) +
                         " is out of range: expected (0, 0.5] (a fraction of delta)",
                     "delta-error"};
    return std::nullopt;
}

/// Identical (q, σ) parts merged: their steps add, and one FFT spectrum serves them.
std::vector<GaussianMechanism> mergedParts(const std::vector<GaussianMechanism>& parts) {
    std::map<std::pair<double, double>, long long> steps;
    for (const auto& p : parts) steps[{p.q, p.sigma}] += p.steps;
    std::vector<GaussianMechanism> out;
    for (const auto& [key, n] : steps) out.push_back({key.first, key.second, n});
    return out;
}

struct DirectionBounds {
    double upper, lower, estimate;
    long long gridPoints;
};

/// Both bounds for one neighbour direction (the error analysis of docs/PRIVACY.md, "PRV accountant"):
///   δ_Y(ε) <= δ_grid(ε − η) + tails + hoeffding + alias,
///   δ_Y(ε) >= (1 − tails)·(δ_grid(ε + η) − hoeffding − alias).
Result<DirectionBounds> boundsFor(const std::vector<GaussianMechanism>& parts, NeighbourDirection direction,
                                  double delta, double h, double tailBound, double hoeffding,
                                  const PrvAccuracy& accuracy) {
    std::vector<DiscretisedPrv> steps;
    steps.reserve(parts.size());
    double tails = 0.0;
    for (const auto& p : parts) {
        auto d = discretisePrv(SubsampledGaussianPrv(p.q, p.sigma, direction), h, tailBound, accuracy.maxGridPoints);
        if (!d) return d.error();
        tails += static_cast<double>(p.steps) * d->tailMass;
        steps.push_back(std::move(d).value());
    }
    std::vector<PrvComponent> components;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const SubsampledGaussianPrv prv(parts[i].q, parts[i].sigma, direction);
        const DiscretisedPrv* step = &steps[i];
        components.push_back({step, parts[i].steps,
                              [prv, step, h](double lambda) { return gaussianPrvLogMgfBound(prv, *step, h, lambda); }});
    }
    const double deltaError = accuracy.deltaErrorFraction * delta;
    auto composed = composePrvs(components, h, deltaError / 4.0, accuracy.maxGridPoints);
    if (!composed) return composed.error();
    const double slack = tails + hoeffding + composed->aliasBound + composed->negativeMass;
    if (!(slack < delta))
        return Error{"the PRV accountant's error terms (" + formatNumber(slack) + ") reach delta = " +
                     formatNumber(delta) + ": lower the delta error"};
    const double eta = accuracy.epsilonError;
    DirectionBounds b{};
    b.upper = composedEpsilon(*composed, delta - slack) + eta;
    b.lower = std::max(0.0, composedEpsilon(*composed, delta / (1.0 - tails) + hoeffding + composed->aliasBound +
                                                           composed->negativeMass) - eta);
    b.estimate = composedEpsilon(*composed, delta);
    b.gridPoints = composed->gridPoints;
    return b;
}

double rdpEpsilonOf(const std::vector<GaussianMechanism>& parts, double delta) {
    const auto& orders = defaultRdpOrders();
    std::vector<double> rdp(orders.size(), 0.0);
    for (const auto& p : parts) {
        const auto curve = subsampledGaussianRdp(p.q, p.sigma, p.steps, orders);
        for (std::size_t i = 0; i < rdp.size(); ++i) rdp[i] += curve[i];
    }
    return rdpToEpsilon(orders, rdp, delta).epsilon;
}

}  // namespace

Result<PrvEpsilon> prvEpsilon(const std::vector<GaussianMechanism>& parts, double delta, const PrvAccuracy& accuracy) {
    if (auto e = checkParts(parts, delta, accuracy)) return *e;
    const auto merged = mergedParts(parts);
    long long k = 0;
    bool subsampled = false;
    for (const auto& p : merged) {
        k += p.steps;
        subsampled = subsampled || p.q < 1.0;
    }
    const double deltaError = accuracy.deltaErrorFraction * delta;
    // Hoeffding: the k rounding errors, each in an interval of length h with mean zero (up to the
    // quadrature accuracy of each step's mean), exceed η with probability <= deltaError/4.
    const double hoeffding = deltaError / 4.0;
    const double etaForRounding = accuracy.epsilonError - static_cast<double>(k) * kPrvMeanAccuracy;
    const double h = etaForRounding * std::sqrt(2.0 / (static_cast<double>(k) * std::log(1.0 / hoeffding)));
    const double tailBound = deltaError / (8.0 * static_cast<double>(k));  // per tail, per step

    PrvEpsilon out;
    out.epsilonError = accuracy.epsilonError;
    out.deltaError = deltaError;
    out.mesh = h;
    out.upper = -1.0;
    // With q = 1 both directions have the same PRV, N(μ²/2, μ²) per step: one pass suffices.
    // Otherwise the two directions are independent computations: the add direction runs on a
    // second thread (FFTW's execute is thread-safe; its planner is locked).
    auto bounds = [&](NeighbourDirection direction) {
        return boundsFor(merged, direction, delta, h, tailBound, hoeffding, accuracy);
    };
    std::future<Result<DirectionBounds>> add;
    if (subsampled) add = std::async(std::launch::async, bounds, NeighbourDirection::Add);
    std::vector<std::pair<NeighbourDirection, Result<DirectionBounds>>> results;
    results.emplace_back(NeighbourDirection::Remove, bounds(NeighbourDirection::Remove));
    if (subsampled) results.emplace_back(NeighbourDirection::Add, add.get());
    for (const auto& [direction, b] : results) {
        if (!b) return b.error();
        if (b->upper > out.upper) {
            out.upper = b->upper;
            out.limitingDirection = direction == NeighbourDirection::Remove ? "remove" : "add";
        }
        out.lower = std::max(out.lower, b->lower);
        out.estimate = std::max(out.estimate, b->estimate);
        out.gridPoints = std::max(out.gridPoints, b->gridPoints);
    }
    return out;
}

Result<PrvCertificate> prvCertifiedEpsilon(const std::vector<GaussianMechanism>& parts, double delta,
                                           const PrvAccuracy& accuracy) {
    auto prv = prvEpsilon(parts, delta, accuracy);
    if (!prv) return prv.error();
    PrvCertificate c;
    c.prv = *prv;
    c.rdpEpsilon = rdpEpsilonOf(parts, delta);
    c.epsilon = std::min(c.prv.upper, c.rdpEpsilon);
    return c;
}

Result<PrvSigmaCalibration> calibrateGaussianSigmaPrvAfter(const std::vector<GaussianMechanism>& prior,
                                                           double targetEpsilon, double delta, double q,
                                                           long long steps, const PrvAccuracy& accuracy) {
    if (auto e = checkPositive("epsilon", targetEpsilon)) return *e;
    std::vector<GaussianMechanism> parts = prior;
    parts.push_back({q, 1.0, steps});
    if (auto e = checkParts(parts, delta, accuracy)) return *e;

    PrvSigmaCalibration out;
    // The certificate at σ, or nothing when the accountant cannot certify it (an error such as a
    // grid too large is "not certified", never "certified").
    auto certify = [&](double sigma) -> std::optional<PrvCertificate> {
        ++out.evaluations;
        parts.back().sigma = sigma;
        auto c = prvCertifiedEpsilon(parts, delta, accuracy);
        if (!c || !(c->epsilon <= targetEpsilon)) return std::nullopt;
        return *c;
    };

    // The RDP calibration is an upper end of the bracket: its ε certifies the target by itself.
    auto rdpOnly = [&](double sigma) {
        parts.back().sigma = sigma;
        return rdpEpsilonOf(parts, delta);
    };
    double hi = 1.0;
    for (; rdpOnly(hi) > targetEpsilon; hi *= 2.0)
        if (hi > 1e6)
            return Error{"no noise multiplier up to 1e6 reaches epsilon " + formatNumber(targetEpsilon) +
                         " with q = " + formatNumber(q) + ", " + std::to_string(steps) + " steps and delta = " +
                         formatNumber(delta) + ": the privacy budget is too small"};
    double lo = hi / 2.0;
    while (hi - lo > 1e-10 * hi) {
        const double mid = 0.5 * (lo + hi);
        (rdpOnly(mid) <= targetEpsilon ? hi : lo) = mid;
    }
    out.rdpSigma = hi;
    auto atHi = certify(hi);
    if (!atHi) {  // the PRV computation failed where RDP certifies: the RDP certificate stands
        parts.back().sigma = hi;
        PrvCertificate c;
        c.rdpEpsilon = c.epsilon = rdpOnly(hi);
        out.sigma = hi;
        out.certificate = c;
        return out;
    }
    // Walk down until the certificate fails, then shrink the bracket to 1e-4 relative by false
    // position on log ε against log σ (nearly linear: ε falls roughly like a power of σ), in the
    // Illinois variant, with bisection when a point cannot be certified at all. The first step
    // down is the power-law guess with exponent 1, 2% further; later ones grow geometrically.
    // Every accepted `hi` has its own certificate.
    auto gap = [&](double epsilon) { return std::log(epsilon / targetEpsilon); };
    double fHi = gap(atHi->epsilon);
    double ratio = std::max(1.01, targetEpsilon / atHi->epsilon / 0.98);
    lo = hi / ratio;
    std::optional<double> fLo;  // unset: not computable there (treated as "not certified")
    for (;;) {
        ++out.evaluations;
        parts.back().sigma = lo;
        auto c = prvCertifiedEpsilon(parts, delta, accuracy);
        if (c && c->epsilon <= targetEpsilon) {
            hi = lo;
            atHi = *c;
            fHi = gap(c->epsilon);
            ratio = std::min(std::max(ratio * ratio, 1.25), 16.0);
            lo /= ratio;
            continue;
        }
        if (c) fLo = gap(c->epsilon);
        break;
    }
    int side = 0;  // Illinois: which end was kept last (halve its value when kept twice)
    while (hi - lo > 1e-4 * hi) {
        const double a = std::log(lo), b = std::log(hi);
        double x = 0.5 * (a + b);
        if (fLo && *fLo > 0.0 && fHi <= 0.0) {
            x = b - fHi * (b - a) / (fHi - *fLo);
            // A root predicted within half the tolerance of an end: test just inside that end,
            // which closes the bracket in one evaluation when the prediction is right.
            if (b - x < 0.5e-4) {
                x = b + std::log1p(-0.99e-4);
            } else if (x - a < 0.5e-4) {
                x = a + std::log1p(0.99e-4);
            } else {
                const double margin = 0.02 * (b - a);
                x = std::clamp(x, a + margin, b - margin);
            }
        }
        const double mid = std::exp(x);
        ++out.evaluations;
        parts.back().sigma = mid;
        auto c = prvCertifiedEpsilon(parts, delta, accuracy);
        if (c && c->epsilon <= targetEpsilon) {
            hi = mid;
            atHi = *c;
            fHi = gap(c->epsilon);
            if (side == 1 && fLo) *fLo *= 0.5;
            side = 1;
        } else {
            lo = mid;
            if (c) fLo = gap(c->epsilon);
            else fLo.reset();
            if (side == -1) fHi *= 0.5;
            side = -1;
        }
    }
    out.sigma = hi;
    out.certificate = *atHi;
    return out;
}

Result<PrvSigmaCalibration> calibrateGaussianSigmaPrv(double targetEpsilon, double delta, double q, long long steps,
                                                      const PrvAccuracy& accuracy) {
    return calibrateGaussianSigmaPrvAfter({}, targetEpsilon, delta, q, steps, accuracy);
}

}  // namespace dpmix::privacy
