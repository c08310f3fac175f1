#include "engine/privacy/log_math.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace dpmix::privacy {

double logAdd(double a, double b) {
    const double lo = std::min(a, b);
    const double hi = std::max(a, b);
    if (lo == kNegInf) return hi;
    return std::log1p(std::exp(lo - hi)) + hi;
}

double logSub(double a, double b) {
    if (a < b) throw std::domain_error("logSub: log(exp(a) - exp(b)) with a < b is negative");
    if (b == kNegInf) return a;
    if (a == b) return kNegInf;
    const double d = a - b;
    // expm1 overflows for d > ~709, where exp(a) - exp(b) == exp(a) to double precision.
    if (d > 700.0) return a;
    return std::log(std::expm1(d)) + b;
}

double logErfc(double x) {
    if (x < 20.0) return std::log(std::erfc(x));
    // Asymptotic series erfc(x) = exp(-x^2)/(x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2x^2)^k.
    // At x >= 20 the terms shrink by >= 1/800 each; eight terms are below 1e-20.
    const double inv2x2 = 1.0 / (2.0 * x * x);
    double term = 1.0;
    double sum = 1.0;
    for (int k = 1; k <= 8; ++k) {
        term *= -(2.0 * k - 1.0) * inv2x2;
        sum += term;
    }
    return -x * x - std::log(x) - 0.5 * std::log(std::numbers::pi) + std::log(sum);
}

double logBinomial(int n, int k) {
    if (k < 0 || k > n) throw std::domain_error("logBinomial: k outside [0, n]");
    return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

}  // namespace dpmix::privacy
