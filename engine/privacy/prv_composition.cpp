#include "engine/privacy/prv_composition.h"

#include "engine/privacy/parameters.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <mutex>
#include <string>

namespace dpmix::privacy {
namespace {

// FFTW's planner is not thread-safe (only fftw_execute is): plans are made and destroyed under
// one lock; the audit and the workbench's calculator compute from several threads.
std::mutex& fftwPlannerLock() {
    static std::mutex lock;
    return lock;
}

struct FftBuffers {
    explicit FftBuffers(long long n) : n(n) {
        real = fftw_alloc_real(static_cast<std::size_t>(n));
        spectrum = fftw_alloc_complex(static_cast<std::size_t>(n / 2 + 1));
        if (!real || !spectrum) return;
        std::lock_guard guard(fftwPlannerLock());
        forward = fftw_plan_dft_r2c_1d(static_cast<int>(n), real, spectrum, FFTW_ESTIMATE);
        backward = fftw_plan_dft_c2r_1d(static_cast<int>(n), spectrum, real, FFTW_ESTIMATE);
    }
    ~FftBuffers() {
        {
            std::lock_guard guard(fftwPlannerLock());
            if (forward) fftw_destroy_plan(forward);
            if (backward) fftw_destroy_plan(backward);
        }
        fftw_free(real);
        fftw_free(spectrum);
    }
    FftBuffers(const FftBuffers&) = delete;
    FftBuffers& operator=(const FftBuffers&) = delete;
    bool ok() const { return real && spectrum && forward && backward; }

    long long n;
    double* real = nullptr;
    fftw_complex* spectrum = nullptr;
    fftw_plan forward = nullptr;
    fftw_plan backward = nullptr;
};

long long positiveModulo(long long j, long long n) {
    const long long r = j % n;
    return r < 0 ? r + n : r;
}

double gridValue(const DiscretisedPrv& prv, std::size_t i, double h) {
    return static_cast<double>(prv.firstIndex + static_cast<long long>(i)) * h + prv.shift;
}

struct Window {
    double low, high;
    double mean, variance;  // of the composed discretised sum, exactly (from the components)
};

/// [low, high] holding all but `aliasBound` of the composed mass, from Chernoff bounds
/// P(S ≥ a) ≤ exp(Λ(λ) − λa) and P(S ≤ b) ≤ exp(Λ(−λ) + λb), minimised over a set of λ. Λ is
/// bounded through the components' log-MGF bounds (PrvComponent::logMgfBound), so no pass over
/// the bins is needed per λ.
Window chernoffWindow(const std::vector<PrvComponent>& components, double h, double aliasBound) {
    double mean = 0.0, variance = 0.0;
    for (const auto& c : components) {
        double m = 0.0, m2 = 0.0;
        for (std::size_t i = 0; i < c.prv->pmf.size(); ++i) {
            const double v = gridValue(*c.prv, i, h);
            m += c.prv->pmf[i] * v;
            m2 += c.prv->pmf[i] * v * v;
        }
        mean += static_cast<double>(c.steps) * m;
        variance += static_cast<double>(c.steps) * std::max(0.0, m2 - m * m);
    }
    const double spread = std::max(std::sqrt(variance), h);
    const double logInverseTail = std::log(2.0 / aliasBound);  // each side gets half
    const double lambdaGaussian = std::sqrt(2.0 * logInverseTail) / spread;
    double bestHigh = std::numeric_limits<double>::infinity();
    double bestLow = -std::numeric_limits<double>::infinity();
    // Around the Gaussian optimum, and a fixed ladder: with small q the loss has a heavy upper
    // tail, whose best λ is far below the Gaussian one.
    std::vector<double> lambdas;
    for (int k = -4; k <= 3; ++k) lambdas.push_back(std::clamp(lambdaGaussian * std::ldexp(1.0, k), 1e-3, 1e3));
    for (double l : {0.125, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0}) lambdas.push_back(l);
    for (const double lambda : lambdas) {
        double up = 0.0, down = 0.0;
        for (const auto& c : components) {
            up += static_cast<double>(c.steps) * c.logMgfBound(lambda);
            down += static_cast<double>(c.steps) * c.logMgfBound(-lambda);
        }
        bestHigh = std::min(bestHigh, (up + logInverseTail) / lambda);
        bestLow = std::max(bestLow, -(down + logInverseTail) / lambda);
    }
    return Window{std::min(bestLow, mean), std::max(bestHigh, mean), mean, variance};
}

/// z^n for a spectrum value |z| <= 1. Most frequencies of a many-step composition underflow to 0:
/// they are recognised from |z|² alone (`underflowBelow`, the |z|² whose n-th power is below
/// e^{−745}), without a logarithm, sine or cosine.
std::complex<double> integerPower(std::complex<double> z, long long n, double underflowBelow) {
    if (n == 1) return z;
    const double squaredModulus = std::norm(z);
    if (!(squaredModulus > underflowBelow)) return {0.0, 0.0};
    const double logModulus = 0.5 * std::log(squaredModulus) * static_cast<double>(n);
    return std::polar(std::exp(logModulus), std::arg(z) * static_cast<double>(n));
}

}  // namespace

long long fastFftSize(long long n) {
    for (long long m = std::max(1LL, n);; ++m) {
        long long r = m;
        for (long long p : {2LL, 3LL, 5LL, 7LL})
            while (r % p == 0) r /= p;
        if (r == 1) return m;
    }
}

Result<ComposedPrv> composePrvs(const std::vector<PrvComponent>& components, double h, double aliasBound,
                                long long maxGridPoints) {
    ComposedPrv out;
    out.mesh = h;
    out.aliasBound = aliasBound;
    for (const auto& c : components) out.shift += static_cast<double>(c.steps) * c.prv->shift;

    const Window window = chernoffWindow(components, h, aliasBound);
    const double needed = std::ceil((window.high - window.low) / h) + 2.0;
    if (!(needed <= static_cast<double>(maxGridPoints)))
        return Error{"the PRV accountant would need a grid of " + formatNumber(needed) +
                     " points (more than its limit of " + std::to_string(maxGridPoints) +
                     ") for this composition at this accuracy: use the RDP accountant for it"};
    const long long n = fastFftSize(static_cast<long long>(needed));
    out.gridPoints = n;
    out.firstIndex = static_cast<long long>(std::floor((window.low - out.shift) / h));

    FftBuffers fft(n);
    if (!fft.ok()) return Error{"the PRV accountant could not allocate a grid of " + std::to_string(n) + " points"};
    const std::size_t bins = static_cast<std::size_t>(n / 2 + 1);
    std::vector<std::complex<double>> product(bins, {1.0, 0.0});
    for (const auto& c : components) {
        std::fill(fft.real, fft.real + n, 0.0);
        for (std::size_t i = 0; i < c.prv->pmf.size(); ++i)
            fft.real[positiveModulo(c.prv->firstIndex + static_cast<long long>(i), n)] += c.prv->pmf[i];
        fftw_execute(fft.forward);
        const double underflowBelow = std::exp(-2.0 * 745.0 / static_cast<double>(c.steps));
        for (std::size_t b = 0; b < bins; ++b)
            product[b] *= integerPower({fft.spectrum[b][0], fft.spectrum[b][1]}, c.steps, underflowBelow);
    }
    for (std::size_t b = 0; b < bins; ++b) {
        fft.spectrum[b][0] = product[b].real();
        fft.spectrum[b][1] = product[b].imag();
    }
    fftw_execute(fft.backward);  // unnormalised: divide by n

    // Index r of the circular result holds the composed grid index J ≡ r (mod n) in the window.
    out.pmf.assign(static_cast<std::size_t>(n), 0.0);
    double mean = 0.0, second = 0.0;
    for (long long i = 0; i < n; ++i) {
        const double p = fft.real[positiveModulo(out.firstIndex + i, n)] / static_cast<double>(n);
        if (p < 0.0) out.negativeMass -= p;
        out.pmf[static_cast<std::size_t>(i)] = std::max(0.0, p);
        const double v = static_cast<double>(out.firstIndex + i) * h + out.shift;
        mean += p * v;
        second += p * v * v;
    }
    // A defence in depth: mass wrapped around the circle would move the mean and the variance
    // of the window away from the composition's own (Σ steps·mean, Σ steps·variance). The bound
    // above makes that impossible; if it ever failed, refuse rather than certify.
    const double variance = second - mean * mean;
    const double width = static_cast<double>(n) * h;
    if (!(std::abs(mean - window.mean) <= 1e-6 * (1.0 + width)) ||
        !(std::abs(variance - window.variance) <= 1e-4 * window.variance + 1e-6 * (1.0 + width * width)))
        return Error{"the PRV accountant's composition failed its consistency check (mean " + formatNumber(mean) +
                     " vs " + formatNumber(window.mean) + ", variance " + formatNumber(variance) + " vs " +
                     formatNumber(window.variance) + "); the RDP bound stands"};
    return out;
}

namespace {

/// e^{−v} of the grid values walking down from the top: one multiplication by e^{h} per bin,
/// recomputed exactly every 1024 bins so rounding cannot drift (one exp per bin dominated ε(δ)).
class DescendingExp {
public:
    DescendingExp(const ComposedPrv& c) : c_(c), step_(std::exp(c.mesh)) {}
    double at(std::size_t i) {
        if (count_++ % 1024 == 0) {
            value_ = std::exp(-(static_cast<double>(c_.firstIndex + static_cast<long long>(i)) * c_.mesh + c_.shift));
        } else {
            value_ *= step_;
        }
        return value_;
    }

private:
    const ComposedPrv& c_;
    double step_;
    double value_ = 0.0;
    long long count_ = 0;
};

}  // namespace

double composedDelta(const ComposedPrv& c, double epsilon) {
    double delta = 0.0;
    for (std::size_t i = c.pmf.size(); i-- > 0;) {
        const double v = static_cast<double>(c.firstIndex + static_cast<long long>(i)) * c.mesh + c.shift;
        if (v <= epsilon) break;
        delta += c.pmf[i] * -std::expm1(epsilon - v);
    }
    return delta;
}

double composedEpsilon(const ComposedPrv& c, double delta) {
    // On [v_{i-1}, v_i) δ(ε) = A − e^ε·B with A, B the sums of p and p·e^{−v} over values ≥ v_i:
    // walk down from the top to the segment where δ crosses the target, then solve exactly.
    // Every segment is tested, also below an empty bin: skipping the test there missed a
    // crossing on that segment and solved on a lower one with more mass, an ε too small by up
    // to the width of the run of empty bins (tst_prv_accountant, anEmptyBinIsNotSkipped).
    double a = 0.0, b = 0.0;
    DescendingExp expMinus(c);
    const double expMinusMesh = std::exp(-c.mesh);
    for (std::size_t i = c.pmf.size(); i-- > 0;) {
        const double v = static_cast<double>(c.firstIndex + static_cast<long long>(i)) * c.mesh + c.shift;
        if (v <= 0.0) break;
        const double e = expMinus.at(i);
        a += c.pmf[i];
        b += c.pmf[i] * e;
        if (b == 0.0) continue;  // no mass at or above v yet: δ = 0 on this segment
        const double below = i == 0 ? 0.0 : std::max(0.0, v - c.mesh);
        const double expBelow = below > 0.0 ? expMinusMesh / e : 1.0;  // e^{v − h} without an exp
        if (a - expBelow * b > delta) return std::max(below, std::log((a - delta) / b));
    }
    return 0.0;
}

}  // namespace dpmix::privacy
