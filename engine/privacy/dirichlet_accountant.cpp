#include "engine/privacy/dirichlet_accountant.h"

#include "engine/privacy/dirichlet_rdp.h"
#include "engine/privacy/parameters.h"

#include <boost/math/tools/toms748_solve.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace dpmix::privacy {

EpsilonAtOrder dirichletEpsilon(const DirichletMechanism& m, double delta, int maxOrder) {
    EpsilonAtOrder best{std::numeric_limits<double>::infinity(), std::nan("")};
    const int top = maxDirichletOrder(m.alpha, m.r, maxOrder);
    for (int l = 2; l <= top; ++l) {
        const double rdp = static_cast<double>(m.steps) * subsampledDirichletRdp(m.alpha, m.r, m.q, l);
        const double eps = rdpToEpsilonAtOrder(l, rdp, delta);
        if (eps < best.epsilon) best = {eps, static_cast<double>(l)};
    }
    return best;
}

Result<DirichletCalibration> calibrateDirichletR(double targetEpsilon, double delta, double alpha, double q,
                                                 long long steps, int maxOrder) {
    int evaluations = 0;
    auto eps = [&](double r) {
        ++evaluations;
        return dirichletEpsilon({alpha, r, q, steps}, delta, maxOrder);
    };
    const double lo = alpha / 256.0;
    const double hi = alpha * (1.0 - 1e-9);
    const EpsilonAtOrder atLo = eps(lo);
    if (atLo.epsilon > targetEpsilon)
        return Error{"even r = alpha/256 = " + formatNumber(lo) + " gives epsilon " + formatNumber(atLo.epsilon) +
                     " > target " + formatNumber(targetEpsilon) + " (q = " + formatNumber(q) + ", " +
                     std::to_string(steps) + " steps): raise epsilon, lower q or steps"};
    const EpsilonAtOrder atHi = eps(hi);
    if (atHi.epsilon <= targetEpsilon) return DirichletCalibration{hi, atHi.epsilon, atHi.order, evaluations};

    auto f = [&](double r) { return eps(r).epsilon - targetEpsilon; };
    std::uintmax_t maxIter = 200;
    const auto bracket =
        boost::math::tools::toms748_solve(f, lo, hi, atLo.epsilon - targetEpsilon, atHi.epsilon - targetEpsilon,
                                          boost::math::tools::eps_tolerance<double>(40), maxIter);
    // bracket.first keeps the sign of f(lo) (<= 0): the safe side.
    double r = bracket.first;
    EpsilonAtOrder at = eps(r);
    if (at.epsilon > targetEpsilon) {  // defensive: never hand back an r over budget
        r = lo;
        at = atLo;
    }
    return DirichletCalibration{r, at.epsilon, at.order, evaluations};
}

}  // namespace dpmix::privacy
