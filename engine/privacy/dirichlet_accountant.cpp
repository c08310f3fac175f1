#include "engine/privacy/dirichlet_accountant.h"

#include "engine/privacy/dirichlet_rdp.h"

#include <boost/math/tools/toms748_solve.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
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

DirichletCalibration calibrateDirichletR(double targetEpsilon, double delta, double alpha, double q, long long steps,
                                         int maxOrder) {
    int evaluations = 0;
    auto eps = [&](double r) {
        ++evaluations;
        return dirichletEpsilon({alpha, r, q, steps}, delta, maxOrder);
    };
    const double lo = alpha / 256.0;
    const double hi = alpha * (1.0 - 1e-9);
    const EpsilonAtOrder atLo = eps(lo);
    if (atLo.epsilon > targetEpsilon)
        throw std::domain_error("even r = alpha/256 = " + std::to_string(lo) + " gives epsilon " +
                                std::to_string(atLo.epsilon) + " > target " + std::to_string(targetEpsilon) +
                                ": raise epsilon, lower q or steps");
    const EpsilonAtOrder atHi = eps(hi);
    if (atHi.epsilon <= targetEpsilon) return {hi, atHi.epsilon, atHi.order, evaluations};

    auto f = [&](double r) { return eps(r).epsilon - targetEpsilon; };
    std::uintmax_t maxIter = 200;
    const auto bracket = boost::math::tools::toms748_solve(f, lo, hi, atLo.epsilon - targetEpsilon,
                                                           atHi.epsilon - targetEpsilon,
                                                           boost::math::tools::eps_tolerance<double>(40), maxIter);
    // bracket.first keeps the sign of f(lo) (<= 0): the safe side.
    double r = bracket.first;
    EpsilonAtOrder at = eps(r);
    if (at.epsilon > targetEpsilon) {  // defensive: never hand back an r over budget
        r = lo;
        at = atLo;
    }
    return {r, at.epsilon, at.order, evaluations};
}

}  // namespace dpmix::privacy
