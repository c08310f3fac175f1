#pragma once
// The privacy loss random variable (PRV) of one step of the Poisson-subsampled Gaussian mechanism,
// and its discretisation on a uniform grid: the building block of the PRV accountant
// (prv_accountant.h; the method and its error analysis: docs/PRIVACY.md, "PRV accountant").
//
// With the noise std scaled to 1, μ = 1/σ, one step compares P = (1-q)·N(0,1) + q·N(μ,1) (the
// data set with the unit) with Q = N(0,1) (without it). Its log-likelihood ratio is
//     L(x) = log(1 - q + q·exp(μx - μ²/2)),
// increasing in x. The two neighbouring directions have different PRVs:
//     remove:  Y = L(X),  X ~ P        add:  Y = -L(X),  X ~ Q
// and δ(ε) = E[(1 - e^{ε-Y})₊] for each; a guarantee for add/remove neighbours needs both.
#include "engine/privacy/gaussian_accountant.h"

#include <vector>

namespace dpmix::privacy {

enum class NeighbourDirection { Remove, Add };

/// The PRV of one step, continuous, in closed form through the normal CDF.
class SubsampledGaussianPrv {
public:
    SubsampledGaussianPrv(double q, double sigma, NeighbourDirection direction);

    /// L(x), the log-likelihood ratio at the noisy output x (noise std 1).
    double logLikelihoodRatio(double x) const;
    /// The x with L(x) = s; -inf when s <= log(1-q) (L never gets that low).
    double inverseLogLikelihoodRatio(double s) const;

    /// P(X < x) and P(X > x) of the law X is drawn from in this direction (each accurate in its tail).
    double xCdf(double x) const;
    double xSurvival(double x) const;
    /// Mass of X in [a, b], computed from whichever tail keeps it accurate.
    double xMass(double a, double b) const;
    /// Density of X at x.
    double xDensity(double x) const;

    /// Y as a function of x: L(x) for Remove, -L(x) for Add.
    double lossAt(double x) const;

    double q() const { return q_; }
    double mu() const { return mu_; }
    NeighbourDirection direction() const { return direction_; }

private:
    double q_, mu_;
    NeighbourDirection direction_;
};

/// One step's PRV conditioned on X in [xLow, xHigh] and rounded to the grid {j·h}: bucket j holds
/// Y in [(j-½)h, (j+½)h). `shift` is E[Y | truncation] − E[round(Y) | truncation], so that
/// Y − (round(Y) + shift) has mean zero (the Hoeffding step of the error analysis needs it).
struct DiscretisedPrv {
    long long firstIndex = 0;  // grid index of pmf[0]
    std::vector<double> pmf;   // sums to 1
    double shift = 0.0;        // |shift| <= h/2
    double tailMass = 0.0;     // P(X outside [xLow, xHigh]): the truncated-away mass of one step
};

/// Discretises `prv` on mesh `h`, truncating each tail of X at mass <= `tailBound`.
/// An error when it would need more than `maxBins` buckets, or when the mean cannot be
/// integrated to the accuracy the error analysis assumes.
Result<DiscretisedPrv> discretisePrv(const SubsampledGaussianPrv& prv, double h, double tailBound, long long maxBins);

/// An upper bound on log E[e^{λ·Ỹ}] of the discretised step Ỹ = round(Y | truncation) + shift, for
/// λ of either sign, from Rényi divergences of the continuous mechanism (R = subsampledGaussianRdp,
/// which is D_α(P‖Q) and bounds D_α(Q‖P) too, Mironov, Talwar & Zhang 2019):
///   λ > 0:  λ·R(λ+1);    λ = −ℓ < 0:  (ℓ−1)·R(ℓ) for ℓ > 1, 0 for ℓ <= 1 (Hölder),
/// with R taken at the next integer order (R grows with the order), plus |λ|·h (|Ỹ − Y| <= h)
/// and −log(1 − tailMass) (conditioning on the truncation).
double gaussianPrvLogMgfBound(const SubsampledGaussianPrv& prv, const DiscretisedPrv& discretised, double h,
                              double lambda);

/// The accuracy (absolute) the analysis assumes of each step's mean E[Y | truncation].
inline constexpr double kPrvMeanAccuracy = 1e-9;

}  // namespace dpmix::privacy
