#include "engine/privacy/dirichlet_rdp.h"

#include "engine/privacy/log_math.h"

#include <boost/math/special_functions/trigamma.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dpmix::privacy {

int maxDirichletOrder(double alpha, double r, int cap) {
    // Strict inequality λ < 1 + α/r: when α/r is an integer, that integer + 1 is excluded.
    const double bound = 1.0 + alpha / r;
    int lambda = static_cast<int>(std::ceil(bound)) - 1;
    if (lambda > cap) lambda = cap;
    return lambda;
}

double dirichletRdp(double alpha, double r, int order) {
    if (!(alpha > 0.0) || !(r > 0.0) || !(r < alpha))
        throw std::invalid_argument("dirichletRdp: need alpha > 0 and 0 < r < alpha");
    if (order < 2) throw std::invalid_argument("dirichletRdp: order must be an integer >= 2");
    const double arg = alpha - (order - 1.0) * r;
    if (!(order < 1.0 + alpha / r) || !(arg > 0.0)) return std::numeric_limits<double>::infinity();
    return order * r * r * boost::math::trigamma(arg);
}

double subsampledDirichletRdp(double alpha, double r, double q, int order) {
    if (!(q > 0.0 && q <= 1.0)) throw std::invalid_argument("subsampledDirichletRdp: q must lie in (0, 1]");
    if (order < 2) throw std::invalid_argument("subsampledDirichletRdp: order must be an integer >= 2");
    const double base = dirichletRdp(alpha, r, order);
    if (std::isinf(base)) return base;  // then every lower order is admissible, but λ itself is not
    if (q == 1.0) return base;
    const double logQ = std::log(q);
    const double log1mQ = std::log1p(-q);
    const int l = order;
    double logA = (l - 1) * log1mQ + std::log(l * q - q + 1.0);
    logA = logAdd(logA, logBinomial(l, 2) + 2 * logQ + (l - 2) * log1mQ + dirichletRdp(alpha, r, 2));
    const double log3 = std::log(3.0);
    for (int j = 3; j <= l; ++j) {
        logA =
            logAdd(logA, log3 + logBinomial(l, j) + (l - j) * log1mQ + j * logQ + (j - 1) * dirichletRdp(alpha, r, j));
    }
    return logA / (l - 1.0);
}

}  // namespace dpmix::privacy
