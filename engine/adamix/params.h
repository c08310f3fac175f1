#pragma once
// Parameters of AdaMix-R and of its baselines and ablations (docs/ADAMIX.md), and the validating
// builder that turns user input into them, calibrating the noise multiplier σ for a target (ε, δ)
// with the chosen accountant on the way. Messages begin with the field's name (epsilon, delta, q,
// steps, eta, rank, clip-quantile, ridge, public-ridge, clip-floor, clip, ...), and Error::field
// carries it.
#include "engine/core/builder_setter.h"
#include "engine/core/result.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/randomness_source.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dpmix::adamix {

/// Where the private per-example gradients are projected before clipping and noise.
enum class Projection {
    PublicSubspace,  // top-r right singular vectors of the public per-example gradients (AdaMix-R)
    None,            // V_r = I_d: clip and noise in the full parameter space (DP-GD, ablation)
};
/// How the clip norm C_t of each step is chosen.
enum class ClipRule {
    PublicQuantile,  // quantile τ of the public projected-gradient norms, floored at c_min (AdaMix-R)
    Fixed,           // one C for every step (DP-GD, ablation)
};
/// The start θ₀ (also the centre of the ridge term).
enum class Initialisation {
    PublicFewShot,  // the ridge-regularised fit on the public set
    Zero,           // θ₀ = 0 (DP-GD from zero)
};
/// Gaussian: the DP mechanism. None: a zero-noise control for tests; its ledger entry is NonPrivate.
enum class NoiseMode { Gaussian, None };

/// The named configurations a comparison runs (docs/ADAMIX.md, "Baselines and ablations").
enum class AdamixVariant {
    AdamixR,           // subspace, public-quantile clip, public gradient term, public start
    NoProjection,      // ablation: V_r = I
    FixedClip,         // ablation: fixed C
    NoPublicGradient,  // ablation: private term only (public data still start, clip and subspace)
    DpGdFromZero,      // baseline: no public data at all
    DpGdWarmStart,     // baseline: DP-GD started (and ridge-centred) at the public fit
};

const char* toString(Projection v);
const char* toString(ClipRule v);
const char* toString(Initialisation v);
const char* toString(NoiseMode v);
const char* toString(AdamixVariant v);

struct AdamixParams {
    long long steps = 0;    // T
    double stepSize = 0.0;  // η (constant)
    double epsilon = 0.0;   // ε certified at σ (<= the target when ε was given)
    double delta = 0.0;     // δ
    double sigma = 0.0;     // noise multiplier: noise std = σ·C_t
    double q = 1.0;         // Poisson rate per private example; 1 = full batch
    privacy::Accountant accountant = privacy::Accountant::Rdp;
    int rank = 0;               // r (the run caps it at min(m, d))
    double clipQuantile = 0.5;  // τ
    double clipFloor = 1e-6;    // c_min
    double fixedClip = 0.0;     // C of ClipRule::Fixed
    double ridge = 1e-4;        // λ: ridge towards θ₀ in every step
    double publicRidge = 1e-3;  // λ₀ of the public fit
    Projection projection = Projection::PublicSubspace;
    ClipRule clip = ClipRule::PublicQuantile;
    bool publicGradientTerm = true;
    Initialisation init = Initialisation::PublicFewShot;
    NoiseMode noise = NoiseMode::Gaussian;
    privacy::RandomnessSource randomness;  // noise and sampling: secret unless seeded on purpose
    std::string split = "private";         // ledger: the data split the mechanism touches
    long long privateExamples = 0;         // n
    long long publicExamples = 0;          // m

    /// True when some step reads the public set (start, subspace, clip or gradient term).
    bool usesPublicData() const;
};

class AdamixParamsBuilder {
public:
    AdamixParamsBuilder& steps(long long v) { return core::setField(*this, steps_, v); }
    AdamixParamsBuilder& stepSize(double v) { return core::setField(*this, eta_, v); }
    /// Give either a target ε (σ is calibrated) or σ (ε is computed), not both.
    AdamixParamsBuilder& epsilon(double v) { return core::setField(*this, epsilon_, v); }
    AdamixParamsBuilder& sigma(double v) { return core::setField(*this, sigma_, v); }
    AdamixParamsBuilder& delta(double v) { return core::setField(*this, delta_, v); }
    /// Poisson rate; not given: full batch (q = 1).
    AdamixParamsBuilder& samplingRate(double v) { return core::setField(*this, q_, v); }
    AdamixParamsBuilder& accountant(privacy::Accountant v) { return core::setField(*this, accountant_, v); }
    /// Not given: min(m, 64).
    AdamixParamsBuilder& rank(int v) { return core::setField(*this, rank_, v); }
    AdamixParamsBuilder& clipQuantile(double v) { return core::setField(*this, tau_, v); }
    AdamixParamsBuilder& clipFloor(double v) { return core::setField(*this, cMin_, v); }
    /// A fixed clip C: switches the clip rule to Fixed.
    AdamixParamsBuilder& fixedClip(double v) {
        fixedClip_ = v;
        clip_ = ClipRule::Fixed;
        return *this;
    }
    AdamixParamsBuilder& ridge(double v) { return core::setField(*this, ridge_, v); }
    AdamixParamsBuilder& publicRidge(double v) { return core::setField(*this, publicRidge_, v); }
    AdamixParamsBuilder& projection(Projection v) { return core::setField(*this, projection_, v); }
    AdamixParamsBuilder& clipRule(ClipRule v) { return core::setField(*this, clip_, v); }
    AdamixParamsBuilder& publicGradientTerm(bool v) { return core::setField(*this, publicTerm_, v); }
    AdamixParamsBuilder& initialisation(Initialisation v) { return core::setField(*this, init_, v); }
    /// Sets projection, clip rule, public term and start of a named configuration (a fixed C must
    /// still be given for the variants that use one).
    AdamixParamsBuilder& variant(AdamixVariant v);
    AdamixParamsBuilder& noise(NoiseMode v) { return core::setField(*this, noise_, v); }
    AdamixParamsBuilder& randomness(privacy::RandomnessSource v) {
        return core::setField(*this, randomness_, std::move(v));
    }
    /// Seeded randomness: reproducible, and its ledger entry says it is no release.
    AdamixParamsBuilder& reproducible(std::uint64_t seed, std::string invocation = "adamix") {
        return randomness(privacy::RandomnessSource::seeded(seed, std::move(invocation)));
    }
    AdamixParamsBuilder& split(std::string v) { return core::setField(*this, split_, std::move(v)); }

    /// The defaults of docs/ADAMIX.md: T = 200, η = 1, δ = 1e-5, τ = 0.5, λ = 1e-4, λ₀ = 1e-3,
    /// c_min = 1e-6, full batch. ε (or σ) must still be given.
    static AdamixParamsBuilder defaults();

    /// Validates every field for n private and m public examples, and calibrates σ (or computes ε).
    Result<AdamixParams> build(long long privateExamples, long long publicExamples) const;

private:
    std::optional<long long> steps_;
    std::optional<double> eta_, epsilon_, sigma_, delta_, q_, tau_, cMin_, fixedClip_, ridge_, publicRidge_;
    std::optional<int> rank_;
    privacy::Accountant accountant_ = privacy::Accountant::Rdp;
    Projection projection_ = Projection::PublicSubspace;
    ClipRule clip_ = ClipRule::PublicQuantile;
    bool publicTerm_ = true;
    Initialisation init_ = Initialisation::PublicFewShot;
    NoiseMode noise_ = NoiseMode::Gaussian;
    privacy::RandomnessSource randomness_;
    std::string split_ = "private";
};

}  // namespace dpmix::adamix
