#pragma once
// The mail study's downstream stages (docs/TEXT.md, "Pipeline"), in the LibTorch process:
//
//   token cache (dpmix-text) ──► for each seed, ε, method:
//     pretrain a fresh causal transformer on public windows drawn by domain with probability λ_i
//       (λ: DP-MixMin's λ_DP at ε, Random Search's, uniform, λ* for non-private MixMin; none for
//        Random Init)
//     user-level DP fine-tuning (one window per Poisson-sampled user, clipped, noised; σ from
//       the accountant) on split B (DP-MixMin, Random Search) or the whole training split
//       (Uniform, Random Init, non-private MixMin)
//     test perplexity on the test users' mail, every K fine-tuning steps (curve) and at the end
//   stored as runs named after the method, with ledger, λ, metrics and the curve.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"
#include "engine/text_tokens/text_downstream_tokens.h"
#include "engine/train/causal_lm.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::text_downstream {

struct TextDownstreamSettings {
    train::TransformerSpec model;  // vocabulary is taken from the token cache
    long long pretrainSteps = 300;
    int pretrainBatch = 32;    // windows per step
    double pretrainLr = 1e-3;  // Adam
    long long finetuneSteps = 100;
    int finetuneUsers = 64;    // expected users per step (q = users / m)
    double finetuneLr = 1e-3;  // Adam on the privatised gradient
    double clip = 1.0;
    int trainLastBlocks = 3;             // the last two blocks + head (the paper's LM setting)
    long long evaluateEvery = 25;        // curve points (fine-tuning steps)
    long long evaluationTokens = 16384;  // predicted test tokens per evaluation (0 = all)
    bool reproducible = false;           // seeded fine-tuning randomness (not a release); default secret
    privacy::Accountant accountant = privacy::Accountant::Rdp;  // σ calibration and ledger of the fine-tuning
    std::string device = "cpu";  // where the language model trains (train::CausalLm::create's names)
};

/// The spec's pretrain/finetune batch, lr, clip and steps, with the CLI's step overrides.
TextDownstreamSettings textDownstreamSettings(const project::ProjectSpec& spec, std::optional<long long> pretrainSteps,
                                              std::optional<long long> finetuneSteps);

struct TextDownstreamRun {
    std::string method;
    std::uint64_t seed = 0;
    double epsilon = 0.0;
    double testPerplexity = 0.0;        // after fine-tuning
    double pretrainedPerplexity = 0.0;  // step 0 of the curve
    double sigma = 0.0, q = 0.0;
    long long finetuneUsers = 0;  // m
    double ledgerEpsilon = 0.0;
    bool established = true;
    long long runId = 0;
};

struct TextDownstreamReport {
    std::vector<TextDownstreamRun> runs;
};

/// `methods`: canonical names (canonicalMethod). Runs every cache seed, every ε the mixture stage
/// released a λ_DP for (restricted to `epsilons` when given). Checks that the cache's tokenizer
/// is the one the project's newest proxies run stored.
Result<TextDownstreamReport> runTextDownstream(project::ProjectFile& project, const text_tokens::TokenCache& cache,
                                               const std::vector<std::string>& methods,
                                               const std::vector<double>& epsilons,
                                               const TextDownstreamSettings& settings,
                                               const ProgressCallback& progress = {},
                                               const CancellationToken& cancel = {}, const pipeline::LogSink& log = {});

}  // namespace dpmix::text_downstream
