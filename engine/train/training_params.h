#pragma once
// Parameters of the training stages, with validating builders (plain C++, no torch).
// Field names match the CLI flags / spec keys (epochs, batchSize, learningRate, ...).
#include "engine/core/builder_setter.h"
#include "engine/core/result.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/randomness_source.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dpmix::train {

enum class OptimizerKind { Sgd, Adam };
std::string toString(OptimizerKind kind);
bool parseOptimizerKind(const std::string& text, OptimizerKind& out);  // "sgd", "adam"

/// Non-private training on public data: proxies and pretraining (docs/TRAINING.md).
struct SupervisedParams {
    int epochs = 3;
    int batchSize = 128;
    double learningRate = 1e-3;
    OptimizerKind optimizer = OptimizerKind::Adam;
    double momentum = 0.9;  // SGD only
    double weightDecay = 0.0;
    std::int64_t maxExamples = 0;  // > 0: train on a random subsample of this many examples
    std::uint64_t seed = 1;
    std::string device = "cpu";  // where the new model lives (Model::create)
};

class SupervisedParamsBuilder {
public:
    SupervisedParamsBuilder& epochs(int v) { return core::setField(*this, p_.epochs, v); }
    SupervisedParamsBuilder& batchSize(int v) { return core::setField(*this, p_.batchSize, v); }
    SupervisedParamsBuilder& learningRate(double v) { return core::setField(*this, p_.learningRate, v); }
    SupervisedParamsBuilder& optimizer(OptimizerKind v) { return core::setField(*this, p_.optimizer, v); }
    SupervisedParamsBuilder& momentum(double v) { return core::setField(*this, p_.momentum, v); }
    SupervisedParamsBuilder& weightDecay(double v) { return core::setField(*this, p_.weightDecay, v); }
    SupervisedParamsBuilder& maxExamples(std::int64_t v) { return core::setField(*this, p_.maxExamples, v); }
    SupervisedParamsBuilder& seed(std::uint64_t v) { return core::setField(*this, p_.seed, v); }
    SupervisedParamsBuilder& device(std::string v) { return core::setField(*this, p_.device, std::move(v)); }
    Result<SupervisedParams> build() const;

private:
    SupervisedParams p_;
};

/// DP-SGD fine-tuning (docs/TRAINING.md, "DP-SGD"): Poisson sampling at q = expectedBatchSize / N,
/// per-example clipping to clipNorm, Gaussian noise σ·clipNorm, sum divided by q·N.
struct DpSgdParams {
    double epsilon = 1.0;
    double delta = 1e-5;
    std::optional<double> sigma;  // set: use this noise multiplier instead of calibrating to ε
    privacy::Accountant accountant = privacy::Accountant::Rdp;  // calibrates σ, certifies the ledger entry
    double clipNorm = 1.0;
    double learningRate = 0.5;
    double momentum = 0.0;
    int expectedBatchSize = 256;
    int epochs = 10;                       // steps T = ceil(epochs · N / expectedBatchSize) ...
    long long steps = 0;                   // ... unless steps > 0
    int trainLastBlocks = 0;               // > 0: fine-tune only the last N blocks (the head is the last)
    std::string split = "B";               // ledger: which data split this touches
    privacy::RandomnessSource randomness;  // sampling and noise: secret unless seeded on purpose
    // User level only (finetuneUserLevelDpSgd): at most this many images of a sampled user enter
    // a step (G); expectedBatchSize then counts users.
    long long maxExamplesPerUser = 15;
    // Data-parallel ranks (engine/distributed) the mechanism runs on; > 1 is said in the ledger entry.
    int ranks = 1;
};

class DpSgdParamsBuilder {
public:
    DpSgdParamsBuilder& epsilon(double v) { return core::setField(*this, p_.epsilon, v); }
    DpSgdParamsBuilder& delta(double v) { return core::setField(*this, p_.delta, v); }
    DpSgdParamsBuilder& sigma(double v) { return core::setField(*this, p_.sigma, v); }
    DpSgdParamsBuilder& accountant(privacy::Accountant v) { return core::setField(*this, p_.accountant, v); }
    DpSgdParamsBuilder& clipNorm(double v) { return core::setField(*this, p_.clipNorm, v); }
    DpSgdParamsBuilder& learningRate(double v) { return core::setField(*this, p_.learningRate, v); }
    DpSgdParamsBuilder& momentum(double v) { return core::setField(*this, p_.momentum, v); }
    DpSgdParamsBuilder& expectedBatchSize(int v) { return core::setField(*this, p_.expectedBatchSize, v); }
    DpSgdParamsBuilder& epochs(int v) { return core::setField(*this, p_.epochs, v); }
    DpSgdParamsBuilder& steps(long long v) { return core::setField(*this, p_.steps, v); }
    DpSgdParamsBuilder& trainLastBlocks(int v) { return core::setField(*this, p_.trainLastBlocks, v); }
    DpSgdParamsBuilder& split(std::string v) { return core::setField(*this, p_.split, std::move(v)); }
    DpSgdParamsBuilder& randomness(privacy::RandomnessSource v) {
        return core::setField(*this, p_.randomness, std::move(v));
    }
    DpSgdParamsBuilder& maxExamplesPerUser(long long v) { return core::setField(*this, p_.maxExamplesPerUser, v); }
    DpSgdParamsBuilder& ranks(int v) { return core::setField(*this, p_.ranks, v); }
    /// Seeded sampling and noise keyed by (seed, invocation): reproducible, marked as no release.
    DpSgdParamsBuilder& reproducible(std::uint64_t seed, std::string invocation = "dp-sgd") {
        return randomness(privacy::RandomnessSource::seeded(seed, std::move(invocation)));
    }
    Result<DpSgdParams> build() const;

private:
    DpSgdParams p_;
};

/// Dirichlet-mechanism fine-tuning (Rao et al. 2026; docs/ALGORITHMS.md C): labels public,
/// no clipping, p̃ ~ Dir(r·softmax + α), loss −log p̃_y averaged over the realised batch.
struct DirichletParams {
    double epsilon = 1.0;
    double delta = 1e-5;
    double alpha = 3.0;
    std::optional<double> r;  // set: use this scale instead of calibrating r* to ε
    double learningRate = 0.1;
    OptimizerKind optimizer = OptimizerKind::Sgd;  // the paper: plain SGD (Adam variant lr 1e-3)
    int expectedBatchSize = 250;
    int epochs = 40;
    long long steps = 0;
    int trainLastBlocks = 0;
    std::string split = "B";
    privacy::RandomnessSource randomness;  // sampling and Gamma draws: secret unless seeded on purpose
};

class DirichletParamsBuilder {
public:
    DirichletParamsBuilder& epsilon(double v) { return core::setField(*this, p_.epsilon, v); }
    DirichletParamsBuilder& delta(double v) { return core::setField(*this, p_.delta, v); }
    DirichletParamsBuilder& alpha(double v) { return core::setField(*this, p_.alpha, v); }
    DirichletParamsBuilder& r(double v) { return core::setField(*this, p_.r, v); }
    DirichletParamsBuilder& learningRate(double v) { return core::setField(*this, p_.learningRate, v); }
    DirichletParamsBuilder& optimizer(OptimizerKind v) { return core::setField(*this, p_.optimizer, v); }
    DirichletParamsBuilder& expectedBatchSize(int v) { return core::setField(*this, p_.expectedBatchSize, v); }
    DirichletParamsBuilder& epochs(int v) { return core::setField(*this, p_.epochs, v); }
    DirichletParamsBuilder& steps(long long v) { return core::setField(*this, p_.steps, v); }
    DirichletParamsBuilder& trainLastBlocks(int v) { return core::setField(*this, p_.trainLastBlocks, v); }
    DirichletParamsBuilder& split(std::string v) { return core::setField(*this, p_.split, std::move(v)); }
    DirichletParamsBuilder& randomness(privacy::RandomnessSource v) {
        return core::setField(*this, p_.randomness, std::move(v));
    }
    /// Seeded sampling and Gamma draws keyed by (seed, invocation): reproducible, marked as no release.
    DirichletParamsBuilder& reproducible(std::uint64_t seed, std::string invocation = "dirichlet") {
        return randomness(privacy::RandomnessSource::seeded(seed, std::move(invocation)));
    }
    Result<DirichletParams> build() const;

private:
    DirichletParams p_;
};

/// Steps T for `epochs` passes at expected batch B over N examples: ceil(epochs·N/B).
long long stepsForEpochs(int epochs, std::int64_t examples, int expectedBatchSize);

}  // namespace dpmix::train
