#pragma once
// Parameters of DP-MixMin (Algorithms 1 and 2) and the validating builder that turns user input
// into them, calibrating the noise multiplier σ for the target (ε, δ) on the way.
// Field names in messages are those of the CLI flags (epsilon, delta, q, expected-batch, clip,
// eta, steps, max-examples-per-user, ...).
#include "engine/core/builder_setter.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/randomness_source.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dpmix::mixmin {

/// Gaussian: the DP mechanism. None: clipping without noise — a control used only by tests
/// and the no-noise audit baseline; its ledger entry is NonPrivate (ε = ∞).
enum class NoiseMode { Gaussian, None };

/// Which per-unit gradient is clipped (docs/ALGORITHMS.md F.16, docs/METHODS.md). Raw: the
/// objective's own gradient (BCE form for binary tasks) — the default, as in the reference the
/// paper's C = 13 was set for. TangentProjected: g − mean(g)·1, which the EG step ignores the
/// difference of, and which never has a larger norm, so clipping biases less at the same C.
enum class ClippedGradient { Raw, TangentProjected };

/// Which iterate is released (F.5): the last one λ_T (default, as the paper releases) or the
/// average of λ_1..λ_T. Both are post-processing of the noisy iterates, so both are equally
/// private; the result carries both, this chooses the one called `lambda`.
enum class ReleasedIterate { Last, Average };

const char* toString(NoiseMode mode);
const char* toString(ClippedGradient g);
const char* toString(ReleasedIterate r);

struct DpMixMinParams {
    double epsilon = 0.0;  // target ε
    double delta = 0.0;    // δ
    double q = 0.0;        // Poisson rate per unit (example or user)
    long long units = 0;   // n examples (Alg. 1) or m users (Alg. 2) q refers to
    privacy::PrivacyUnit unit = privacy::PrivacyUnit::Example;
    long long maxExamplesPerUser = 0;      // G_ULS, user level only
    double clipNorm = 0.0;                 // C
    double stepSize = 0.0;                 // η of the EG step
    long long steps = 0;                   // T
    privacy::RandomnessSource randomness;  // sampling and noise: secret unless seeded on purpose
    NoiseMode noise = NoiseMode::Gaussian;
    ClippedGradient clipped = ClippedGradient::Raw;
    ReleasedIterate release = ReleasedIterate::Last;
    long long trajectoryEvery = 1;                              // keep λ_t every this many steps (plus λ_0 and λ_T)
    std::string split = "A";                                    // ledger: the data split mixture learning touches
    privacy::Accountant accountant = privacy::Accountant::Rdp;  // calibrates σ and certifies the ledger entry
    double sigma = 0.0;                                         // calibrated noise multiplier for (ε, δ, q, T)
    double calibratedEpsilon = 0.0;                             // ε at that σ (<= epsilon)
};

class DpMixMinParamsBuilder {
public:
    DpMixMinParamsBuilder& epsilon(double v) { return core::setField(*this, epsilon_, v); }
    DpMixMinParamsBuilder& delta(double v) { return core::setField(*this, delta_, v); }
    /// Give either q or the expected batch size B (then q = B / units).
    DpMixMinParamsBuilder& samplingRate(double v) { return core::setField(*this, q_, v); }
    DpMixMinParamsBuilder& expectedBatch(double v) { return core::setField(*this, batch_, v); }
    DpMixMinParamsBuilder& clipNorm(double v) { return core::setField(*this, clip_, v); }
    DpMixMinParamsBuilder& stepSize(double v) { return core::setField(*this, eta_, v); }
    DpMixMinParamsBuilder& steps(long long v) { return core::setField(*this, steps_, v); }
    /// Where sampling and noise come from; the default is secret OS randomness (a release).
    DpMixMinParamsBuilder& randomness(privacy::RandomnessSource v) {
        return core::setField(*this, randomness_, std::move(v));
    }
    /// Seeded randomness keyed by (seed, invocation): reproducible, and its ledger entry says
    /// it is no release. For tests, audits and teaching.
    DpMixMinParamsBuilder& reproducible(std::uint64_t seed, std::string invocation = "dp-mixmin") {
        return randomness(privacy::RandomnessSource::seeded(seed, std::move(invocation)));
    }
    DpMixMinParamsBuilder& noise(NoiseMode v) { return core::setField(*this, noise_, v); }
    DpMixMinParamsBuilder& clippedGradient(ClippedGradient v) { return core::setField(*this, clipped_, v); }
    DpMixMinParamsBuilder& release(ReleasedIterate v) { return core::setField(*this, release_, v); }
    DpMixMinParamsBuilder& trajectoryEvery(long long v) { return core::setField(*this, every_, v); }
    DpMixMinParamsBuilder& split(std::string v) { return core::setField(*this, split_, std::move(v)); }
    DpMixMinParamsBuilder& accountant(privacy::Accountant v) { return core::setField(*this, accountant_, v); }
    /// User level (Algorithm 2): at most G examples of a sampled user per step.
    DpMixMinParamsBuilder& maxExamplesPerUser(long long v) { return core::setField(*this, maxPerUser_, v); }

    /// Paper defaults for imaging (A.8): C = 13, B = 1000, η = 1, δ = 1e-5, T = 100 (T is not
    /// reported; 100 is the synthetic reference's). ε must still be given.
    static DpMixMinParamsBuilder imagingDefaults();
    /// Paper defaults for language (A.8): T = 200, η = 5, δ = 1e-5, C = 0.01 at user level
    /// (Enron), 0.2 at example level (OpenWebMath); at user level G_ULS = 15 (the paper's value
    /// for fine-tuning; F.6). Batch / users per step and ε must still be given.
    static DpMixMinParamsBuilder languageDefaults(bool userLevel);

    /// Validates every field against `units` (n examples, or m users when unit is User) and
    /// calibrates σ with the chosen accountant (privacy::calibrateSigma; RDP unless set), the one
    /// the ledger entry records and recomputes ε with, so the recorded ε is the calibrated one.
    Result<DpMixMinParams> build(long long units, privacy::PrivacyUnit unit = privacy::PrivacyUnit::Example) const;

private:
    std::optional<double> epsilon_, delta_, q_, batch_, clip_, eta_;
    std::optional<long long> steps_, maxPerUser_;
    privacy::RandomnessSource randomness_;
    NoiseMode noise_ = NoiseMode::Gaussian;
    ClippedGradient clipped_ = ClippedGradient::Raw;
    ReleasedIterate release_ = ReleasedIterate::Last;
    long long every_ = 0;  // 0: about 100 snapshots
    std::string split_ = "A";
    privacy::Accountant accountant_ = privacy::Accountant::Rdp;
};

}  // namespace dpmix::mixmin
