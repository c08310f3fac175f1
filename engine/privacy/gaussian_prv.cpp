#include "engine/privacy/gaussian_prv.h"

#include "engine/privacy/gaussian_rdp.h"
#include "engine/privacy/log_math.h"
#include "engine/privacy/parameters.h"

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/erf.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace dpmix::privacy {
namespace {

double normalCdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }
double normalSurvival(double x) { return 0.5 * std::erfc(x / std::numbers::sqrt2); }
double normalDensity(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi); }

/// Φ^{-1}(p) for small p, through erfc⁻¹ (accurate down to the smallest doubles).
double normalQuantileLow(double p) { return -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * p); }

}  // namespace

SubsampledGaussianPrv::SubsampledGaussianPrv(double q, double sigma, NeighbourDirection direction)
    : q_(q), mu_(1.0 / sigma), direction_(direction) {}

double SubsampledGaussianPrv::logLikelihoodRatio(double x) const {
    const double gaussian = mu_ * x - 0.5 * mu_ * mu_;
    if (q_ >= 1.0) return gaussian;
    return logAdd(std::log1p(-q_), std::log(q_) + gaussian);
}

double SubsampledGaussianPrv::inverseLogLikelihoodRatio(double s) const {
    if (q_ >= 1.0) return (s + 0.5 * mu_ * mu_) / mu_;
    const double floor = std::log1p(-q_);
    if (s <= floor) return -std::numeric_limits<double>::infinity();
    return (logSub(s, floor) - std::log(q_) + 0.5 * mu_ * mu_) / mu_;
}

double SubsampledGaussianPrv::xCdf(double x) const {
    if (direction_ == NeighbourDirection::Add || q_ >= 1.0)
        return direction_ == NeighbourDirection::Add ? normalCdf(x) : normalCdf(x - mu_);
    return (1.0 - q_) * normalCdf(x) + q_ * normalCdf(x - mu_);
}

double SubsampledGaussianPrv::xSurvival(double x) const {
    if (direction_ == NeighbourDirection::Add || q_ >= 1.0)
        return direction_ == NeighbourDirection::Add ? normalSurvival(x) : normalSurvival(x - mu_);
    return (1.0 - q_) * normalSurvival(x) + q_ * normalSurvival(x - mu_);
}

double SubsampledGaussianPrv::xDensity(double x) const {
    if (direction_ == NeighbourDirection::Add) return normalDensity(x);
    if (q_ >= 1.0) return normalDensity(x - mu_);
    return (1.0 - q_) * normalDensity(x) + q_ * normalDensity(x - mu_);
}

double SubsampledGaussianPrv::xMass(double a, double b) const {
    if (!(b > a)) return 0.0;
    // Differences of the CDF lose every digit in the upper tail, differences of the survival
    // function in the lower one: take each side's own (the split point is X's mean).
    const double middle = direction_ == NeighbourDirection::Add ? 0.0 : q_ * mu_;
    if (b <= middle) return std::max(0.0, xCdf(b) - xCdf(a));
    if (a >= middle) return std::max(0.0, xSurvival(a) - xSurvival(b));
    return std::max(0.0, 1.0 - xCdf(a) - xSurvival(b));
}

double SubsampledGaussianPrv::lossAt(double x) const {
    const double l = logLikelihoodRatio(x);
    return direction_ == NeighbourDirection::Remove ? l : -l;
}

double gaussianPrvLogMgfBound(const SubsampledGaussianPrv& prv, const DiscretisedPrv& d, double h, double lambda) {
    const double sigma = 1.0 / prv.mu();
    // Rényi divergence grows with the order, so the next integer order bounds a fractional one;
    // integer orders take the binomial sum, exact and stable at any order (the fractional
    // series is only used by the accountant below order 11).
    auto rdpAtOrAbove = [&](double order) {
        const double r = subsampledGaussianRdp(prv.q(), sigma, std::ceil(order));
        return r >= 0.0 ? r : std::numeric_limits<double>::infinity();  // never trust a negative divergence
    };
    double continuous = 0.0;
    if (lambda > 0.0) {
        continuous = lambda * rdpAtOrAbove(lambda + 1.0);
    } else if (-lambda > 1.0) {
        continuous = (-lambda - 1.0) * rdpAtOrAbove(-lambda);
    }
    return continuous + std::abs(lambda) * h - std::log1p(-d.tailMass);
}

Result<DiscretisedPrv> discretisePrv(const SubsampledGaussianPrv& prv, double h, double tailBound, long long maxBins) {
    const bool remove = prv.direction() == NeighbourDirection::Remove;
    // Truncation in x: Φ(x) bounds P(X < x) for both laws, Φ̄(x - μ) bounds P(X > x).
    const double z = normalQuantileLow(tailBound);
    const double xLow = z;
    const double xHigh = remove ? prv.mu() - z : -z;

    DiscretisedPrv out;
    out.tailMass = prv.xCdf(xLow) + prv.xSurvival(xHigh);

    // Y's range over the truncation, and the grid buckets it meets.
    const double yLow = remove ? prv.lossAt(xLow) : prv.lossAt(xHigh);
    const double yHigh = remove ? prv.lossAt(xHigh) : prv.lossAt(xLow);
    if (!((yHigh - yLow) / h < static_cast<double>(maxBins)))
        return Error{"the PRV accountant would need more than " + std::to_string(maxBins) +
                     " grid points for one step at this accuracy (q = " + formatNumber(prv.q()) +
                     ", sigma = " + formatNumber(1.0 / prv.mu()) + "): use the RDP accountant for it"};
    const long long jLow = static_cast<long long>(std::floor(yLow / h + 0.5));
    const long long jHigh = static_cast<long long>(std::floor(yHigh / h + 0.5));
    out.firstIndex = jLow;
    out.pmf.assign(static_cast<std::size_t>(jHigh - jLow + 1), 0.0);

    // The x at which Y crosses a bucket edge y (clamped to the truncation).
    auto xAtEdge = [&](double y) {
        const double x = remove ? prv.inverseLogLikelihoodRatio(y) : prv.inverseLogLikelihoodRatio(-y);
        return std::clamp(x, xLow, xHigh);
    };
    double previousX = remove ? xLow : xHigh;
    double massSum = 0.0, roundedMean = 0.0;
    for (std::size_t i = 0; i < out.pmf.size(); ++i) {
        const long long j = jLow + static_cast<long long>(i);
        const double x =
            (i + 1 == out.pmf.size()) ? (remove ? xHigh : xLow) : xAtEdge((static_cast<double>(j) + 0.5) * h);
        const double mass = prv.xMass(std::min(previousX, x), std::max(previousX, x));
        out.pmf[i] = mass;
        massSum += mass;
        roundedMean += mass * static_cast<double>(j) * h;
        previousX = x;
    }
    if (!(massSum > 0.0)) return Error{"PRV discretisation found no mass on the grid (internal error)"};
    for (double& p : out.pmf) p /= massSum;
    roundedMean /= massSum;

    // E[Y | truncation] by adaptive Gauss–Kronrod on the smooth integrand L(x)·p(x). Boost's
    // tolerance is relative to the integral, which nearly cancels when σ is large (L is almost
    // odd around X's mean): a relative 1e-14 then splits to the maximum depth everywhere, 2^20
    // intervals, seconds per step. What is needed is an absolute error below 0.1·kPrvMeanAccuracy,
    // so the depth grows only while that is not met.
    double quadratureError = 0.0, integral = 0.0;
    for (unsigned depth : {8u, 14u, 20u}) {
        integral = boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
            [&](double x) { return prv.lossAt(x) * prv.xDensity(x); }, xLow, xHigh, depth, 1e-14, &quadratureError);
        if (quadratureError < 0.1 * kPrvMeanAccuracy) break;
    }
    const double truncatedMass = prv.xMass(xLow, xHigh);
    if (!(quadratureError < 0.1 * kPrvMeanAccuracy) || !(truncatedMass > 0.0))
        return Error{"PRV accountant: the mean of the privacy loss could not be integrated to 1e-10 (q = " +
                     formatNumber(prv.q()) + ", sigma = " + formatNumber(1.0 / prv.mu()) + ")"};
    out.shift = integral / truncatedMass - roundedMean;
    if (std::abs(out.shift) > 0.5 * h + kPrvMeanAccuracy)
        return Error{"PRV discretisation: rounding shift outside half a mesh step (internal error)"};
    return out;
}

}  // namespace dpmix::privacy
