#include "engine/privacy/one_run_bound.h"

#include "engine/privacy/parameters.h"

#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dpmix::privacy {
namespace {

Status checkCounts(const OneRunCounts& c) {
    if (c.canaries < 0)
        return Error{"canaries = " + std::to_string(c.canaries) + " is out of range: expected >= 0", "canaries"};
    if (c.guesses < 0 || c.guesses > c.canaries)
        return Error{"guesses = " + std::to_string(c.guesses) +
                         " is out of range: expected 0 to canaries = " + std::to_string(c.canaries),
                     "guesses"};
    if (c.correct < 0 || c.correct > c.guesses)
        return Error{"correct = " + std::to_string(c.correct) +
                         " is out of range: expected 0 to guesses = " + std::to_string(c.guesses),
                     "correct"};
    return std::nullopt;
}

Status checkDelta(double delta) {
    if (!(delta >= 0.0 && delta < 1.0))
        return Error{"delta = " + formatNumber(delta) + " is out of range: expected [0, 1)", "delta"};
    return std::nullopt;
}

/// The binomial law of the number of correct guesses of ε-randomised response, r trials.
class GuessBinomial {
public:
    GuessBinomial(long long r, double epsilon) : r_(r) {
        // log p and log(1 − p) of the logistic p = 1/(1 + e^−ε), without cancellation.
        logP_ = -std::log1p(std::exp(-epsilon));
        logQ_ = -epsilon + logP_;
        p_ = std::exp(logP_);
        logRFactorial_ = std::lgamma(static_cast<double>(r) + 1.0);
    }
    /// P[W ≥ k].
    double tail(long long k) const {
        if (k <= 0) return 1.0;
        if (k > r_) return 0.0;
        return boost::math::ibeta(static_cast<double>(k), static_cast<double>(r_ - k + 1), p_);
    }
    /// P[W = k].
    double pmf(long long k) const {
        const double kk = static_cast<double>(k), rest = static_cast<double>(r_ - k);
        return std::exp(logRFactorial_ - std::lgamma(kk + 1.0) - std::lgamma(rest + 1.0) + kk * logP_ + rest * logQ_);
    }

private:
    long long r_;
    double logP_ = 0.0, logQ_ = 0.0, p_ = 0.5, logRFactorial_ = 0.0;
};

}  // namespace

double oneRunTailBound(const OneRunCounts& counts, double epsilon, double delta) {
    if (auto e = checkCounts(counts)) throw std::invalid_argument(e->message);
    if (auto e = checkDelta(delta)) throw std::invalid_argument(e->message);
    if (!(epsilon >= 0.0)) throw std::invalid_argument("epsilon = " + formatNumber(epsilon) + ": expected >= 0");
    const long long v = counts.correct;
    const GuessBinomial w(counts.guesses, epsilon);
    const double fv = w.tail(v);
    const double c = 2.0 * static_cast<double>(counts.canaries) * delta;
    double bound = fv;
    double between = 0.0;  // P[v − i ≤ W < v], so f(v − i) = f(v) + between
    for (long long i = 1; i <= v && c > 0.0; ++i) {
        between += w.pmf(v - i);
        const double share = c / static_cast<double>(i);
        bound = std::max(bound, std::max(0.0, 1.0 - share) * fv + share * std::min(1.0, fv + between));
    }
    return std::min(1.0, bound);
}

Result<double> oneRunEpsilonLowerBound(const OneRunCounts& counts, double delta, double confidence,
                                       long long comparisons) {
    if (auto e = checkCounts(counts)) return *e;
    if (auto e = checkDelta(delta)) return *e;
    if (!(confidence > 0.0 && confidence < 1.0))
        return Error{"confidence = " + formatNumber(confidence) + " is out of range: expected (0, 1)", "confidence"};
    if (comparisons < 1)
        return Error{"comparisons = " + std::to_string(comparisons) + " is out of range: expected >= 1", "comparisons"};
    const double beta = (1.0 - confidence) / static_cast<double>(comparisons);
    auto rejected = [&](double eps) { return oneRunTailBound(counts, eps, delta) < beta; };
    if (!rejected(0.0)) return 0.0;
    // Bracket, then bisect: the bound is non-decreasing in ε, so {ε : rejected} is an interval
    // [0, ε_LB). At ε = 64 the logistic p is 1 in double and nothing is rejected.
    double lo = 0.0, hi = 1.0;
    while (hi < 64.0 && rejected(hi)) {
        lo = hi;
        hi *= 2.0;
    }
    if (rejected(hi)) return hi;
    while (hi - lo > 1e-9 * std::max(1.0, hi)) {
        const double mid = 0.5 * (lo + hi);
        (rejected(mid) ? lo : hi) = mid;
    }
    return lo;  // rejected: the bound never overstates ε_LB
}

}  // namespace dpmix::privacy
