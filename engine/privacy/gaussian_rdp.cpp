#include "engine/privacy/gaussian_rdp.h"

#include "engine/privacy/log_math.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace dpmix::privacy {
namespace {

// log(A_α − 1) for integer α, where A_α = Σ_{i=0}^{α} C(α,i) q^i (1-q)^{α-i} exp((i²-i)/(2σ²)).
// The binomial weights sum to one, so A_α − 1 = Σ_{i>=2} C(α,i) q^i (1-q)^{α-i} expm1((i²-i)/(2σ²)):
// every term is positive, and tiny RDP values (large σ, small q) keep full relative precision
// instead of being lost in log(1 + tiny).
double logAMinusOneIntegerOrder(double q, double sigma, int alpha) {
    double logAm1 = kNegInf;
    const double logQ = std::log(q);
    const double log1mQ = std::log1p(-q);
    for (int i = 2; i <= alpha; ++i) {
        const double z = (static_cast<double>(i) * i - i) / (2.0 * sigma * sigma);
        const double logExpm1 = z > 30.0 ? z + std::log1p(-std::exp(-z)) : std::log(std::expm1(z));
        logAm1 = logAdd(logAm1, logBinomial(alpha, i) + i * logQ + (alpha - i) * log1mQ + logExpm1);
    }
    return logAm1;
}

// log(1 + e^x) without overflow.
double softplus(double x) { return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

// log A_α for fractional α: the series of MTZ §3.4, split at z0 = σ² log(1/q - 1) + 1/2
// into two sums with erfc weights. Generalised binomial coefficients alternate in sign
// once i > α, so positive and negative terms are accumulated with logAdd / logSub.
// Terms are added until both are below e^{-30} (A_α >= 1, so the tail is negligible).
double logAFractionalOrder(double q, double sigma, double alpha) {
    double logA0 = kNegInf;
    double logA1 = kNegInf;
    const double z0 = sigma * sigma * std::log(1.0 / q - 1.0) + 0.5;
    const double logQ = std::log(q);
    const double log1mQ = std::log1p(-q);
    const double sqrt2Sigma = std::sqrt(2.0) * sigma;
    double coef = 1.0;  // C(α, i), updated by the recurrence C(α,i) = C(α,i-1)(α-i+1)/i
    for (int i = 0;; ++i) {
        if (i > 0) coef *= (alpha - i + 1.0) / i;
        const double logCoef = std::log(std::fabs(coef));
        const double j = alpha - i;
        const double logT0 = logCoef + i * logQ + j * log1mQ;
        const double logT1 = logCoef + j * logQ + i * log1mQ;
        const double logE0 = std::log(0.5) + logErfc((i - z0) / sqrt2Sigma);
        const double logE1 = std::log(0.5) + logErfc((z0 - j) / sqrt2Sigma);
        const double logS0 = logT0 + (static_cast<double>(i) * i - i) / (2.0 * sigma * sigma) + logE0;
        const double logS1 = logT1 + (j * j - j) / (2.0 * sigma * sigma) + logE1;
        if (coef > 0) {
            logA0 = logAdd(logA0, logS0);
            logA1 = logAdd(logA1, logS1);
        } else {
            logA0 = logSub(logA0, logS0);
            logA1 = logSub(logA1, logS1);
        }
        if (std::max(logS0, logS1) < -30.0) break;
        if (i > 100000) throw std::runtime_error("subsampledGaussianRdp: series did not converge");
    }
    return logAdd(logA0, logA1);
}

double computeRdp(double q, double sigma, double order) {
    if (q == 0.0) return 0.0;
    if (sigma == 0.0) return std::numeric_limits<double>::infinity();
    if (q == 1.0) return order / (2.0 * sigma * sigma);
    if (std::isinf(order)) return std::numeric_limits<double>::infinity();
    const double rounded = std::round(order);
    if (order == rounded)
        return softplus(logAMinusOneIntegerOrder(q, sigma, static_cast<int>(rounded))) / (order - 1.0);
    // The fractional series cancels signed terms; at high orders with large q it can lose every
    // digit (q = 0.5, σ = 14.45 gives negative values from α ≈ 52.7). RDP is non-negative and
    // non-decreasing in α, so the next integer order's exact value bounds it: a series result
    // outside [0, that] is numerical failure, and the bound is returned instead (still valid).
    const double series = logAFractionalOrder(q, sigma, order) / (order - 1.0);
    const double ceiling =
        softplus(logAMinusOneIntegerOrder(q, sigma, static_cast<int>(std::ceil(order)))) / (std::ceil(order) - 1.0);
    return (series >= 0.0 && series <= ceiling * (1.0 + 1e-9)) ? series : ceiling;
}

// The same (q, σ, α) is asked for again and again: every reading of a ledger's total, every
// budget composition and every trust verdict recomputes the curves of the same entries, and
// the fractional-order series costs up to thousands of erfc evaluations. The function is pure,
// so a per-thread memo keyed by the exact bit patterns returns the identical double; it is
// bounded (cleared when full) so calibration's bisection over σ cannot grow it without end.
struct RdpKey {
    std::uint64_t q, sigma, order;
    bool operator==(const RdpKey&) const = default;
};

struct RdpKeyHash {
    std::size_t operator()(const RdpKey& k) const {
        std::uint64_t h = k.q * 0x9E3779B97F4A7C15ull;
        h ^= k.sigma + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
        h ^= k.order + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
        return static_cast<std::size_t>(h);
    }
};

constexpr std::size_t kMemoCapacity = 1 << 16;

}  // namespace

double subsampledGaussianRdp(double q, double sigma, double order) {
    if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("subsampledGaussianRdp: q must lie in [0, 1]");
    if (!(sigma >= 0.0)) throw std::invalid_argument("subsampledGaussianRdp: sigma must be >= 0");
    if (!(order > 1.0)) throw std::invalid_argument("subsampledGaussianRdp: order must be > 1");
    thread_local std::unordered_map<RdpKey, double, RdpKeyHash> memo;
    const RdpKey key{std::bit_cast<std::uint64_t>(q), std::bit_cast<std::uint64_t>(sigma),
                     std::bit_cast<std::uint64_t>(order)};
    if (const auto hit = memo.find(key); hit != memo.end()) return hit->second;
    const double rdp = computeRdp(q, sigma, order);  // may throw (a series that does not converge): not stored
    if (memo.size() >= kMemoCapacity) memo.clear();
    memo.emplace(key, rdp);
    return rdp;
}

std::vector<double> subsampledGaussianRdp(double q, double sigma, long long steps, const std::vector<double>& orders) {
    std::vector<double> rdp;
    rdp.reserve(orders.size());
    for (double a : orders) rdp.push_back(subsampledGaussianRdp(q, sigma, a) * static_cast<double>(steps));
    return rdp;
}

}  // namespace dpmix::privacy
