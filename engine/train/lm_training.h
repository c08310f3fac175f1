#pragma once
// Training and evaluating the causal LM on token streams (plain C++ header, no torch):
//   pretrainCausalLm       public text: each window's domain is drawn with probability λ_i, then a
//                          uniformly random window of T+1 tokens of that domain's stream; Adam on
//                          next-token cross-entropy (docs/ALGORITHMS.md A.6.2). No privacy cost.
//   finetuneCausalLmDpSgd  private text, USER level: Poisson-sample users at q = expectedUsers/m,
//                          one random window per sampled user, per-user (= per-window) gradient
//                          clipped to C by the vectorised clipping, Gaussian noise σC, sum divided
//                          by q·m, Adam (post-processing). σ calibrated to (ε, δ, q, T); one ledger
//                          entry (unit "user") recorded before the first step.
//   causalLmPerplexity     exp(mean NLL) over consecutive T-token windows of the streams.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/train/causal_lm.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dpmix::train {

/// One token stream per domain (pretraining) or per user (fine-tuning, evaluation).
using TokenStreams = std::vector<std::span<const std::int32_t>>;

struct LmPretrainParams {
    long long steps = 300;
    int batchSize = 32;  // windows per step
    double learningRate = 1e-3;
    std::uint64_t seed = 1;
};

struct LmDpParams {
    double epsilon = 1.0;
    double delta = 1e-5;
    std::optional<double> sigma;  // set: this noise multiplier instead of calibrating to ε
    privacy::Accountant accountant = privacy::Accountant::Rdp;  // calibrates σ, certifies the ledger entry
    double clipNorm = 1.0;
    double learningRate = 1e-3;  // Adam
    int expectedUsers = 64;      // q = expectedUsers / m
    long long steps = 100;
    int trainLastBlocks = 0;               // > 0: only the last N freezable units (TransformerSpec::blockCount)
    std::string split = "B";               // ledger: the data split touched
    privacy::RandomnessSource randomness;  // user sampling, window starts, noise: secret unless seeded
    long long evaluateEvery = 0;           // > 0: call the evaluation hook at step 0, every K steps and at the end
};

/// Validating builders (field names as in the CLI / run config).
Result<LmPretrainParams> checkLmPretrainParams(const LmPretrainParams& p);
Result<LmDpParams> checkLmDpParams(const LmDpParams& p);

struct LmFinetuneResult {
    long long steps = 0;
    double q = 0.0;
    double sigma = 0.0;
    privacy::LedgerEntry entry;
    std::vector<double> stepLoss;  // mean window loss of each step's users (NaN: empty batch)
    double clippedFraction = 0.0;  // share of sampled users whose gradient was clipped
};

/// Trains `model` in place on windows drawn from `domains` by `lambda` (on the simplex, one
/// weight per domain; a domain with weight > 0 needs at least 2 tokens). Returns the mean
/// training loss over the last tenth of the steps. Throws Cancelled when cancelled.
Result<double> pretrainCausalLm(CausalLm& model, const TokenStreams& domains, std::span<const double> lambda,
                                const LmPretrainParams& params, const ProgressCallback& progress = {},
                                const CancellationToken& cancel = {});

/// `evaluate(step)` is called (if set and params.evaluateEvery > 0) before the first step with
/// step 0, after every evaluateEvery-th step and after the last one. Errors (nothing trained,
/// ledger unchanged) for bad parameters, token ids outside the vocabulary, or expectedUsers > m.
/// The ledger entry finetuneCausalLmDpSgd records for these parameters on `users` users (σ
/// calibrated to (ε, δ, q = expectedUsers/m, T) unless given), known before any data is touched.
Result<privacy::LedgerEntry> plannedLmDpEntry(const LmDpParams& params, std::int64_t users);

Result<LmFinetuneResult> finetuneCausalLmDpSgd(CausalLm& model, const TokenStreams& users, const LmDpParams& params,
                                               privacy::Ledger& ledger,
                                               const std::function<void(long long step)>& evaluate = {},
                                               const ProgressCallback& progress = {},
                                               const CancellationToken& cancel = {});

/// Perplexity over windows starting at 0, T, 2T, … of every stream (each window predicts its
/// next T tokens from its own prefix). Windows are taken round-robin across streams until
/// `maxTargets` predicted tokens (0 = all). Errors for an empty input or bad token ids.
Result<double> causalLmPerplexity(const CausalLm& model, const TokenStreams& streams, long long maxTargets = 0);

/// The first stream, if any, holding a token outside [0, vocabulary): "stream i, position j: id".
Status checkTokenIds(const TokenStreams& streams, int vocabulary, const std::string& what);

}  // namespace dpmix::train
