#pragma once
// Numerically stable helpers for quantities that live in log space (RDP moments reach
// e^{1000} long before the final answer is an ordinary number).
#include <limits>

namespace dpmix::privacy {

inline constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// log(exp(a) + exp(b)).
double logAdd(double a, double b);

/// log(exp(a) - exp(b)) for a >= b; -inf when a == b. Throws std::domain_error if a < b.
double logSub(double a, double b);

/// log(erfc(x)), accurate also where erfc(x) underflows (x > ~26).
double logErfc(double x);

/// log of the binomial coefficient C(n, k) for integers 0 <= k <= n.
double logBinomial(int n, int k);

}  // namespace dpmix::privacy
