#include "engine/privacy/audit_bound.h"

#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dpmix::privacy {

double clopperPearsonUpper(long long k, long long n, double confidence) {
    if (n < 1 || k < 0 || k > n) throw std::invalid_argument("clopperPearsonUpper: need 0 <= k <= n and n >= 1");
    if (!(confidence > 0.0 && confidence < 1.0))
        throw std::invalid_argument("clopperPearsonUpper: confidence in (0,1)");
    if (k == n) return 1.0;
    const double tail = (1.0 - confidence) / 2.0;
    return boost::math::ibeta_inv(static_cast<double>(k + 1), static_cast<double>(n - k), 1.0 - tail);
}

AuditBound auditEpsilonLowerBound(const AuditCounts& c, double delta, double confidence) {
    if (c.negatives < 1 || c.positives < 1) throw std::invalid_argument("audit bound: need at least one run per world");
    if (c.falsePositives < 0 || c.falsePositives > c.negatives || c.falseNegatives < 0 ||
        c.falseNegatives > c.positives)
        throw std::invalid_argument("audit bound: error counts must lie in [0, runs]");
    if (!(delta >= 0.0 && delta < 1.0)) throw std::invalid_argument("audit bound: delta must lie in [0, 1)");
    AuditBound b{};
    b.fprUpper = clopperPearsonUpper(c.falsePositives, c.negatives, confidence);
    b.fnrUpper = clopperPearsonUpper(c.falseNegatives, c.positives, confidence);
    double eps = 0.0;
    auto consider = [&](double numerator, double denominator) {
        if (numerator > 0.0 && denominator > 0.0) eps = std::max(eps, std::log(numerator / denominator));
    };
    consider(1.0 - delta - b.fnrUpper, b.fprUpper);
    consider(1.0 - delta - b.fprUpper, b.fnrUpper);
    b.epsilonLB = eps;
    return b;
}

}  // namespace dpmix::privacy
