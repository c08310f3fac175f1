#pragma once
// Composition of discretised PRVs by FFT, and ε(δ) of the composed distribution
// (docs/PRIVACY.md, "PRV accountant").
//
// The composed loss is the sum of independent discretised steps; its law is the convolution of
// their pmfs, computed as one product of spectra (each step's spectrum raised to its number of
// steps) on a circular grid of N points. The window the grid covers is chosen from Chernoff
// bounds on the discretised steps' moment generating functions, so the mass that wraps around
// (aliasing) is bounded, not assumed small.
#include "engine/core/result.h"
#include "engine/privacy/gaussian_prv.h"

#include <functional>
#include <vector>

namespace dpmix::privacy {

struct PrvComponent {
    const DiscretisedPrv* prv = nullptr;
    long long steps = 1;
    /// An upper bound on log E[e^{λ·Ỹ}] of one discretised step, for λ of either sign
    /// (gaussianPrvLogMgfBound): it places the window without a pass over the bins per λ.
    std::function<double(double)> logMgfBound;
};

/// The composed discretised PRV on its window: grid index J has value J·h + shift.
struct ComposedPrv {
    long long firstIndex = 0;
    double mesh = 0.0;
    double shift = 0.0;         // Σ steps·shift of the components
    std::vector<double> pmf;    // FFT round-off below zero clamped to 0
    double aliasBound = 0.0;    // certified bound on the mass outside the window
    double negativeMass = 0.0;  // |mass| clamped to 0: a measure of the FFT's round-off
    long long gridPoints = 0;   // N
};

/// Composes `components` on mesh `h` with at most `aliasBound` mass outside the window.
/// An error when the window needs more than `maxGridPoints` points.
Result<ComposedPrv> composePrvs(const std::vector<PrvComponent>& components, double h, double aliasBound,
                                long long maxGridPoints);

/// δ(ε) = Σ_v p(v)·(1 − e^{ε−v})₊ of the composed pmf.
double composedDelta(const ComposedPrv& composed, double epsilon);

/// The smallest ε >= 0 with composedDelta(ε) <= delta (exact on the piecewise form of δ(ε)).
double composedEpsilon(const ComposedPrv& composed, double delta);

/// The smallest N >= n whose only prime factors are 2, 3, 5 and 7 (fast FFT sizes).
long long fastFftSize(long long n);

}  // namespace dpmix::privacy
