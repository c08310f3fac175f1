#pragma once
// Canary audit of the mixture-learning step M_mix (docs/ALGORITHMS.md B; Jagielski et al. 2020 style,
// Nasr et al. 2021 bound). Decisions where the spec is silent: docs/AUDIT.md.
//
//  1. Worlds (add/remove adjacency): "out" runs DP-MixMin on split A; "in" runs it on split A
//     plus the canary (mixmin::ExtraUnit). R runs per world, each with its own seed
//     seeds::derive(seed, world, run) — fresh Poisson sampling and noise per run.
//  2. The released λ of each run is scored (Canary::score).
//  3. Runs [0, S) of each world are SELECT, runs [S, R) are EVAL (S = round(R·selectFraction)):
//     τ and the direction are chosen on SELECT (selectThreshold), the error counts and the
//     Clopper–Pearson ε_LB at `confidence` are taken on EVAL only.
//
// Runs are spread over `threads` std::threads; results do not depend on the thread count.
// Progress: stage "audit", one unit per run. Cancellation: dpmix::Cancelled is thrown.
#include "engine/audit/canary.h"
#include "engine/audit/threshold_attack.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"
#include "engine/mixmin/user_groups.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace dpmix::audit {

struct CanaryAuditOptions {
    CanaryKind canary = CanaryKind::MaxClip;
    /// Natural canary only: the held-out example (one example, same kind and k as split A),
    /// e.g. from makeNaturalCanary.
    std::optional<mixmin::MixtureObjective> naturalExample;
    MaxClipSign maxClipSign = MaxClipSign::LowerTopSource;   // docs/AUDIT.md, "Max-clip sign"
    MaxClipTarget maxClipTarget = MaxClipTarget::TopSource;  // docs/AUDIT.md, "Max-clip target"
    long long runsPerWorld = 2000;  // R (F.11: per world; 1000 EVAL runs each give the 5.60 ceiling)
    double selectFraction = 0.5;    // share of each world's runs used to choose τ
    double confidence = 0.95;       // of the Clopper–Pearson intervals (two-sided per rate)
    std::uint64_t seed = 0;         // audit seed; run seeds derive from it
    int threads = 0;                // 0 = all cores
    bool keepScores = false;        // return every run's score
    /// Copies of the canary example the canary unit holds (> 1: a canary *user* with that many
    /// identical examples; mixmin::ExtraUnit says how each algorithm treats them).
    long long canaryExamples = 1;
    /// Set: audit Algorithm 2 (user level) on these users of split A; `params` must then come from
    /// build(users->users(), PrivacyUnit::User). Unset: Algorithm 1 on split A's examples.
    std::optional<mixmin::UserGroups> users;
};

struct CanaryAuditResult {
    // The bound, from the EVAL runs only.
    double epsilonLB = 0.0;
    double fprUpper = 1.0, fnrUpper = 1.0;  // Clopper–Pearson upper bounds
    long long falsePositives = 0, falseNegatives = 0;
    long long evalOut = 0, evalIn = 0;  // EVAL runs per world
    double fpr = 0.0, fnr = 0.0;        // observed EVAL rates FP/evalOut, FN/evalIn
    // The attack, chosen on the SELECT runs.
    double threshold = 0.0;
    AttackDirection direction = AttackDirection::HigherIsIn;
    double selectEpsilonLB = 0.0;  // ε_LB on SELECT (optimistic; for reference only)
    // What was audited.
    long long runsPerWorld = 0;
    CanaryKind canary = CanaryKind::MaxClip;
    MaxClipSign maxClipSign = MaxClipSign::LowerTopSource;
    MaxClipTarget maxClipTarget = MaxClipTarget::TopSource;
    Eigen::Index topSource = -1;  // max-clip: the pushed source (argmax λ* or the quietest)
    mixmin::NoiseMode noise = mixmin::NoiseMode::Gaussian;
    double sigma = 0.0;
    double claimedEpsilon = 0.0;  // +inf for the no-noise control
    double delta = 0.0;
    double confidence = 0.95;
    std::uint64_t seed = 0;
    double meanCanarySamples = 0.0;  // mean number of steps the canary was sampled in ("in" runs)
    long long canaryExamples = 1;    // copies of the canary example (a canary user when > 1)
    privacy::PrivacyUnit unit = privacy::PrivacyUnit::Example;  // the audited algorithm's unit
    // Instrumentation: run indices (within each world) of the two halves, and (keepScores)
    // every run's score, indexed by run.
    std::vector<long long> selectRuns, evalRuns;
    std::vector<double> scoresIn, scoresOut;
};

// The audit in three steps, so that blocks of runs can be computed elsewhere (a Slurm array
// task, engine/executor/audit_units.h) and joined later with the same result, bit for bit:
// prepare (checks and the canary), any number of blocks of runs of one world, finish (the
// attack and the bound from all runs' scores). runCanaryAudit is the three in one process.

/// The canary resolved against split A (and the checks of runCanaryAudit).
struct CanaryAuditPlan {
    std::optional<Canary> canary;
};
Result<CanaryAuditPlan> prepareCanaryAudit(const mixmin::MixtureObjective& splitA, const mixmin::DpMixMinParams& params,
                                           const CanaryAuditOptions& options, const CancellationToken& cancel = {});

/// Runs [begin, end) of one world ("in": with the canary), seeded exactly as runCanaryAudit
/// seeds them: scores[i] is run begin + i's score; canarySamples sums the steps the canary was
/// sampled in (0 for the "out" world). Spread over options.threads.
struct CanaryAuditBlock {
    bool in = false;
    long long begin = 0, end = 0;
    std::vector<double> scores;
    long long canarySamples = 0;
};
Result<CanaryAuditBlock> runCanaryAuditBlock(const mixmin::MixtureObjective& splitA,
                                             const mixmin::DpMixMinParams& params, const CanaryAuditOptions& options,
                                             const CanaryAuditPlan& plan, bool in, long long begin, long long end,
                                             const ProgressCallback& progress = {},
                                             const CancellationToken& cancel = {});

/// The attack and the bound from every run's score (R per world) and the "in" world's total of
/// canary samples.
CanaryAuditResult finishCanaryAudit(const mixmin::DpMixMinParams& params, const CanaryAuditOptions& options,
                                    const CanaryAuditPlan& plan, std::vector<double> scoresIn,
                                    std::vector<double> scoresOut, long long canarySamples);

/// `params` must come from DpMixMinParamsBuilder::build(splitA.examples()) — or, for a user-level
/// audit, build(options.users->users(), PrivacyUnit::User) — Gaussian at the claimed ε, or
/// NoiseMode::None for the no-noise control; its randomness is replaced per run.
/// Errors name the option (runs-per-world, select-fraction, confidence, natural-canary).
Result<CanaryAuditResult> runCanaryAudit(const mixmin::MixtureObjective& splitA, const mixmin::DpMixMinParams& params,
                                         const CanaryAuditOptions& options, const ProgressCallback& progress = {},
                                         const CancellationToken& cancel = {});

}  // namespace dpmix::audit
