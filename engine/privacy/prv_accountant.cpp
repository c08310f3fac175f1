#include "engine/privacy/prv_accountant.h"

#include "engine/privacy/gaussian_prv.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/prv_composition.h"

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
        return Error{"the PRV accountant's error terms (" + formatNumber(slack) +
                     ") reach delta = " + formatNumber(delta) + ": lower the delta error"};
    const double eta = accuracy.epsilonError;
    DirectionBounds b{};
    b.upper = composedEpsilon(*composed, delta - slack) + eta;
    b.lower = std::max(0.0, composedEpsilon(*composed, delta / (1.0 - tails) + hoeffding + composed->aliasBound +
                                                           composed->negativeMass) -
                                eta);
    b.estimate = composedEpsilon(*composed, delta);
    b.gridPoints = composed->gridPoints;
    return b;
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
    c.rdpEpsilon = gaussianCompositionEpsilon(parts, delta).epsilon;
    c.epsilon = std::min(c.prv.upper, c.rdpEpsilon);
    return c;
}

namespace {

/// One σ calibration: the parts to compose (the last one's σ is searched), the target, and the
/// PRV evaluations made so far.
class SigmaSearch {
public:
    SigmaSearch(std::vector<GaussianMechanism> parts, double target, double delta, const PrvAccuracy& accuracy)
        : parts_(std::move(parts)), target_(target), delta_(delta), accuracy_(accuracy) {}

    /// What one PRV evaluation at σ says: the certificate when it meets the target, and
    /// log(ε / target) when it could be computed (an error, such as a grid too large, is "not
    /// certified", never "certified").
    struct Probe {
        std::optional<PrvCertificate> certificate;
        std::optional<double> gap;
    };
    Probe probe(double sigma) {
        ++evaluations_;
        parts_.back().sigma = sigma;
        auto c = prvCertifiedEpsilon(parts_, delta_, accuracy_);
        Probe p;
        if (c) p.gap = std::log(c->epsilon / target_);
        if (c && c->epsilon <= target_) p.certificate = *c;
        return p;
    }

    double rdpEpsilon(double sigma) {
        parts_.back().sigma = sigma;
        return gaussianCompositionEpsilon(parts_, delta_).epsilon;
    }

    /// The smallest σ (to 1e-10 relative) whose RDP ε meets the target, or an error when no σ up
    /// to 1e6 does.
    Result<double> rdpSigma() {
        double hi = 1.0;
        for (; rdpEpsilon(hi) > target_; hi *= 2.0)
            if (hi > 1e6)
                return Error{"no noise multiplier up to 1e6 reaches epsilon " + formatNumber(target_) +
                             " with q = " + formatNumber(parts_.back().q) + ", " + std::to_string(parts_.back().steps) +
                             " steps and delta = " + formatNumber(delta_) + ": the privacy budget is too small"};
        double lo = hi / 2.0;
        while (hi - lo > 1e-10 * hi) {
            const double mid = 0.5 * (lo + hi);
            (rdpEpsilon(mid) <= target_ ? hi : lo) = mid;
        }
        return hi;
    }

    int evaluations() const { return evaluations_; }

private:
    std::vector<GaussianMechanism> parts_;
    double target_, delta_;
    PrvAccuracy accuracy_;
    int evaluations_ = 0;
};

/// A bracket [lo, hi] of σ: hi certified (its certificate kept), lo not; the gaps log(ε/target)
/// at both ends where known (a lo that could not be computed has none).
struct SigmaBracket {
    double lo, hi;
    PrvCertificate atHi;
    std::optional<double> gapLo;
    double gapHi;
};

/// From a certified σ, step down until the certificate fails: first to the power-law guess
/// (ε ∝ 1/σ) 2% further, then by growing factors (PRV can need far less noise than RDP).
SigmaBracket walkDown(SigmaSearch& search, double hi, const PrvCertificate& atHi, double target) {
    SigmaBracket b{hi, hi, atHi, std::nullopt, std::log(atHi.epsilon / target)};
    double ratio = std::max(1.01, target / atHi.epsilon / 0.98);
    for (b.lo = hi / ratio;; b.lo /= ratio) {
        const auto p = search.probe(b.lo);
        if (!p.certificate) {
            b.gapLo = p.gap;
            return b;
        }
        b.hi = b.lo;
        b.atHi = *p.certificate;
        b.gapHi = *p.gap;
        ratio = std::min(std::max(ratio * ratio, 1.25), 16.0);
    }
}

/// Shrinks the bracket to 1e-4 relative by false position on log ε against log σ (nearly linear),
/// Illinois variant, with bisection where an end has no gap.
void refine(SigmaSearch& search, SigmaBracket& b) {
    int kept = 0;  // which end was kept last (+1 hi, −1 lo): Illinois halves its weight when kept twice
    double weightLo = 1.0, weightHi = 1.0;
    while (b.hi - b.lo > 1e-4 * b.hi) {
        const double x0 = std::log(b.lo), x1 = std::log(b.hi);
        double x = 0.5 * (x0 + x1);
        if (b.gapLo && *b.gapLo > 0.0 && b.gapHi <= 0.0) {
            // The plain secant's root: when it lies within half the tolerance of an end, test just
            // inside that end, which closes the bracket in one evaluation if the prediction holds.
            const double root = x1 - b.gapHi * (x1 - x0) / (b.gapHi - *b.gapLo);
            const double fLo = weightLo * *b.gapLo, fHi = weightHi * b.gapHi;
            x = x1 - fHi * (x1 - x0) / (fHi - fLo);
            if (x1 - root < 0.5e-4)
                x = x1 + std::log1p(-0.99e-4);
            else if (root - x0 < 0.5e-4)
                x = x0 + std::log1p(0.99e-4);
            else
                x = std::clamp(x, x0 + 0.02 * (x1 - x0), x1 - 0.02 * (x1 - x0));
        }
        const double mid = std::exp(x);
        const auto p = search.probe(mid);
        if (p.certificate) {
            b.hi = mid;
            b.atHi = *p.certificate;
            b.gapHi = *p.gap;
            weightHi = 1.0;
            if (kept == 1) weightLo *= 0.5;
            kept = 1;
        } else {
            b.lo = mid;
            b.gapLo = p.gap;
            weightLo = 1.0;
            if (kept == -1) weightHi *= 0.5;
            kept = -1;
        }
    }
}

}  // namespace

Result<PrvSigmaCalibration> calibrateGaussianSigmaPrvAfter(const std::vector<GaussianMechanism>& prior,
                                                           double targetEpsilon, double delta, double q,
                                                           long long steps, const PrvAccuracy& accuracy) {
    if (auto e = checkPositive("epsilon", targetEpsilon)) return *e;
    std::vector<GaussianMechanism> parts = prior;
    parts.push_back({q, 1.0, steps});
    if (auto e = checkParts(parts, delta, accuracy)) return *e;

    SigmaSearch search(parts, targetEpsilon, delta, accuracy);
    // The RDP calibration is the upper end of the bracket: its ε certifies the target by itself.
    auto rdpSigma = search.rdpSigma();
    if (!rdpSigma) return rdpSigma.error();
    PrvSigmaCalibration out;
    out.rdpSigma = *rdpSigma;
    const auto atRdp = search.probe(*rdpSigma);
    if (!atRdp.certificate) {  // the PRV computation failed where RDP certifies: the RDP certificate stands
        out.sigma = *rdpSigma;
        out.certificate.rdpEpsilon = out.certificate.epsilon = search.rdpEpsilon(*rdpSigma);
        out.evaluations = search.evaluations();
        return out;
    }
    SigmaBracket bracket = walkDown(search, *rdpSigma, *atRdp.certificate, targetEpsilon);
    refine(search, bracket);
    out.sigma = bracket.hi;  // every accepted upper end carries its own certificate
    out.certificate = bracket.atHi;
    out.evaluations = search.evaluations();
    return out;
}

Result<PrvSigmaCalibration> calibrateGaussianSigmaPrv(double targetEpsilon, double delta, double q, long long steps,
                                                      const PrvAccuracy& accuracy) {
    return calibrateGaussianSigmaPrvAfter({}, targetEpsilon, delta, q, steps, accuracy);
}

}  // namespace dpmix::privacy
