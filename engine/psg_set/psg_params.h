#pragma once
// Parameters of Private Set Generation (PSG; Chen, Kerkouche & Fritz, NeurIPS 2022), with a
// validating builder, and the privacy cost they imply (docs/PSG.md). Plain C++, no torch.
#include "engine/core/builder_setter.h"
#include "engine/core/result.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/randomness_source.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::psg {

/// How many times a fresh network is matched and then trained on S, by images per class:
/// outer = gradient-matching rounds per network, inner = epochs of training on S between rounds.
struct PsgLoops {
    int outer = 0;
    int inner = 0;
};

/// The images-per-class values the method defines loops for: 1, 10, 20, 50.
const std::vector<int>& supportedImagesPerClass();
/// The published schedule: 1 → (1, 1), 10 → (10, 50), 20 → (20, 25), 50 → (50, 10); an error
/// naming the supported values otherwise.
Result<PsgLoops> loopsForImagesPerClass(int imagesPerClass);

struct PsgParams {
    int imagesPerClass = 10;  // spc
    int iterations = 1000;    // fresh networks, each matched `outer` times
    int batchLoop = 10;       // matching steps (one DP gradient each) per round
    double epsilon = 10.0;
    double delta = 1e-5;
    std::optional<double> sigma;  // set: use this noise multiplier instead of calibrating to ε
    privacy::Accountant accountant = privacy::Accountant::Rdp;
    double clipNorm = 0.1;        // per-example clipping of the real gradient
    int expectedBatchSize = 256;  // Poisson rate q = B / N
    double imageLearningRate = 0.1;
    double imageMomentum = 0.5;
    double networkLearningRate = 0.01;  // training the network on S between rounds
    int networkBatchSize = 256;
    int networkWidth = 128;
    int networkDepth = 3;
    // The fixed, data-independent map from pixels in [0, 1] to the space S lives in:
    // x̂ = (x − pixelMean) / pixelStd. Never estimated from the sensitive data (that would cost ε).
    double pixelMean = 0.5;
    double pixelStd = 0.5;
    std::uint64_t seed = 0;                // public randomness: S's start, the networks, the order on S
    privacy::RandomnessSource randomness;  // the mechanism's sampling and noise: secret unless seeded
    std::string split = "train";           // ledger: which split of the sensitive data it touches
    std::string device = "cpu";            // where S, the networks and every gradient live (Model::create's names)

    PsgLoops loops() const;  // of imagesPerClass (valid after build())
    /// Gaussian mechanism invocations: iterations × outer × batchLoop (every one is run).
    long long compositions() const;
};

class PsgParamsBuilder {
public:
    PsgParamsBuilder& imagesPerClass(int v) { return core::setField(*this, p_.imagesPerClass, v); }
    PsgParamsBuilder& iterations(int v) { return core::setField(*this, p_.iterations, v); }
    PsgParamsBuilder& batchLoop(int v) { return core::setField(*this, p_.batchLoop, v); }
    PsgParamsBuilder& epsilon(double v) { return core::setField(*this, p_.epsilon, v); }
    PsgParamsBuilder& delta(double v) { return core::setField(*this, p_.delta, v); }
    PsgParamsBuilder& sigma(double v) { return core::setField(*this, p_.sigma, v); }
    PsgParamsBuilder& accountant(privacy::Accountant v) { return core::setField(*this, p_.accountant, v); }
    PsgParamsBuilder& clipNorm(double v) { return core::setField(*this, p_.clipNorm, v); }
    PsgParamsBuilder& expectedBatchSize(int v) { return core::setField(*this, p_.expectedBatchSize, v); }
    PsgParamsBuilder& imageLearningRate(double v) { return core::setField(*this, p_.imageLearningRate, v); }
    PsgParamsBuilder& imageMomentum(double v) { return core::setField(*this, p_.imageMomentum, v); }
    PsgParamsBuilder& networkLearningRate(double v) { return core::setField(*this, p_.networkLearningRate, v); }
    PsgParamsBuilder& networkBatchSize(int v) { return core::setField(*this, p_.networkBatchSize, v); }
    PsgParamsBuilder& network(int width, int depth) {
        p_.networkWidth = width;
        p_.networkDepth = depth;
        return *this;
    }
    PsgParamsBuilder& pixelNormalisation(double mean, double std) {
        p_.pixelMean = mean;
        p_.pixelStd = std;
        return *this;
    }
    PsgParamsBuilder& seed(std::uint64_t v) { return core::setField(*this, p_.seed, v); }
    PsgParamsBuilder& randomness(privacy::RandomnessSource v) {
        return core::setField(*this, p_.randomness, std::move(v));
    }
    PsgParamsBuilder& split(std::string v) { return core::setField(*this, p_.split, std::move(v)); }
    /// Seeded sampling and noise keyed by (seed, invocation): reproducible, marked as no release.
    PsgParamsBuilder& reproducible(std::uint64_t seed, std::string invocation = "psg") {
        return randomness(privacy::RandomnessSource::seeded(seed, std::move(invocation)));
    }
    /// Errors name the field, the value and what is expected.
    Result<PsgParams> build() const;

private:
    PsgParams p_;
};

/// The ledger entry PSG records on `examples` sensitive examples: K = compositions() Poisson-
/// subsampled Gaussian steps at q = B / examples, σ calibrated to (ε, δ) by the chosen accountant
/// (or the given σ), sensitivity = clipNorm. Known before any data is touched. An error when
/// B > examples (q would exceed 1) or the budget cannot be met.
Result<privacy::LedgerEntry> plannedPsgEntry(const PsgParams& params, std::int64_t examples);

}  // namespace dpmix::psg
