#pragma once
// The language-modelling study's mixture stage (docs/TEXT.md): public text domains
// (one mixture component per public source) and a sensitive text corpus (e.g. mail, user level).
//
//   public text ──tokenizer + one Kneser–Ney proxy per domain──► DomainProxies   (no privacy cost)
//   sensitive corpus ──train/validation/test (study seed, along users)──► train ──ρ split (run seed)──► A | B
//   proxies × split A ──sequence log-likelihoods + user groups──► MixMin objective (sequence level)
//       → λ* (non-private), uniform, Random Search (non-private), DP-MixMin (Algorithm 2 when user level)
//   each λ ──λ-mixture of the domain proxies──► perplexity on the test users' documents
//
// Every run is stored like the image study's (method, task, ε, seed) with λ records, metrics
// (cosine / L1 to λ*, σ, ε spent, test perplexity) and ledgers. The task name is the sensitive
// source's name.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/user_groups.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::text_study {

/// Knobs of the text study that the project spec does not carry (the defaults keep the mail
/// study's proxies to minutes on a 2-core machine).
struct TextStudySettings {
    int vocabularySize = 8000;                         // sentencepiece target (smaller if the sample cannot support it)
    std::size_t tokenizerBytesPerDomain = 256 * 1024;  // tokenizer training sample per domain
    int ngramOrder = 3;                                // Kneser–Ney order of each domain proxy
    std::size_t maxTrainingBytesPerDomain = 0;         // cap on each proxy's training text (0 = all)
    std::size_t maxTokensPerDocument = 256;            // scored positions per document (objective and perplexity)
    long long defaultUserGroupSize = 15;               // G_ULS when the spec gives none (the paper's value)
    // The mixture feeds the language-model stages (dpmix-text --export-tokens). A DP-MixMin λ the
    // project already released for the same seed, ε and settings is then reused instead of learned
    // (and spent) again — the image study's rule, pipeline/stored_mixture.h — unless
    // StudyRunOptions::relearnMixture; every λ's entry is marked with the run that released it, so
    // the language-model run that carries it is not counted again (docs/PRIVACY.md, "Reusing a
    // released mixture").
    bool downstream = false;
};

/// What one run seed produced beyond the common MixtureOutcome.
struct TextSeedDetails {
    std::uint64_t seed = 0;
    long long usersA = 0, usersB = 0;  // distinct users (user level) in split A / B
    long long documentsA = 0;          // documents of split A kept (non-empty after tokenization)
    // Test perplexity of the λ-mixture of the domain proxies on the test users' documents.
    double perplexityStar = 0.0, perplexityUniform = 0.0, perplexityRandomSearch = 0.0;
    std::vector<double> perplexityDp;  // one per MixtureOutcome::privateLambdas entry
    // NON-PRIVATE diagnostic for choosing / justifying C (never stored, never released): the L2
    // norms of the per-user clipped quantity of Algorithm 2 (tangent-projected mean gradient over
    // the user's first G documents) on split A, at λ = uniform and at λ*; quantiles 0.1/0.5/0.9.
    std::vector<double> userGradientNormQuantilesUniform, userGradientNormQuantilesStar;
    // User ids of split A and split B (sorted, distinct): kept in memory for checks, never stored.
    std::vector<std::string> userIdsA, userIdsB;
};

struct TextStudyReport {
    pipeline::StudyRunReport study;      // componentNames = domains, mixtures per seed
    std::vector<TextSeedDetails> seeds;  // parallel to study.mixtures
    long long testDocuments = 0;         // test documents scored (non-empty)
    long long testUsers = 0;
    std::vector<std::string> testUserIds;  // sorted, distinct
    int vocabularySize = 0;                // of the trained tokenizer
};

/// NON-PRIVATE diagnostic: quantiles 0.1 / 0.5 / 0.9 (nearest rank) of ‖g_u − mean(g_u)·1‖₂, g_u the
/// mean gradient at λ over user u's first `groupSize` examples (each example alone when `users`
/// is empty): the quantity Algorithm 2 clips with ClippedGradient::TangentProjected.
std::vector<double> userGradientNormQuantiles(const mixmin::MixtureObjective& objective,
                                              const std::optional<mixmin::UserGroups>& users, long long groupSize,
                                              const Eigen::VectorXd& lambda);

/// Runs the text study's proxies and mixture stages and stores every run in the project.
/// `options.stages`: "proxies" and/or "mixture" (anything else is refused before anything is
/// stored). The proxies are always built (the mixture needs them; they are not reused from an
/// earlier run: ~15 s); without "mixture" only their run (with the tokenizer) is stored and no
/// sensitive text is scored. Image-proxy options are ignored.
/// This library must not share a process with LibTorch (sentencepiece's embedded protobuf 3.14
/// against LibTorch's 3.21: start-up abort), so `dpmix run` cannot call it; bench_text_study does.
Result<TextStudyReport> runTextStudy(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                                     const TextStudySettings& settings, const ProgressCallback& progress = {},
                                     const CancellationToken& cancel = {}, const pipeline::LogSink& log = {});

/// The same with default settings, returning the common report.
Result<pipeline::StudyRunReport> runTextStudy(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                                              const ProgressCallback& progress = {},
                                              const CancellationToken& cancel = {}, const pipeline::LogSink& log = {});

}  // namespace dpmix::text_study
