#pragma once
// The study-level experiments on a project's real data (cores in engine/audit; docs/AUDIT.md,
// docs/RHO_GUIDANCE.md):
//  - k-scaling (docs/RESULTS.md, "k-scaling"): excess error of DP-MixMin vs the number of
//    sources k, the sources being class-subset tasks of a 10-class proxy derived from the study's;
//  - rho-sweep (the a-posteriori check of ρ) and epsilon-sweep (weight recovery): cos / L1
//    of λ_DP to λ*, per sensitive task.
// All three compare private outputs with non-private references computed on sensitive data:
// they are diagnostics, never releases, and each stored run's ledger says so (NonPrivate entry).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/experiments/epsilon_sweep.h"
#include "engine/experiments/k_scaling.h"
#include "engine/experiments/rho_sweep.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"

#include <Eigen/Dense>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::experiment_runs {

/// The 10-class (C-class) view of a study for k-scaling: p(c | x) on split A and the raw class
/// of each split-A example.
struct ClassView {
    std::vector<std::string> classes;           // C class names of the sensitive source
    std::vector<std::size_t> componentOfClass;  // public component holding exactly class c
    Eigen::MatrixXd probabilities;              // n_A × C, rows sum to 1
    std::vector<int> classOf;                   // n_A raw class ids
};

/// p(c | x) ∝ P(component componentOfClass[c] positive | x), renormalised over the C classes.
/// `componentProbabilities` is n × k. Rows whose C probabilities sum to 0 become uniform.
Eigen::MatrixXd classProbabilitiesFromComponents(const Eigen::MatrixXd& componentProbabilities,
                                                 const std::vector<std::size_t>& componentOfClass);

/// For each class name, the public task (component) whose classes are exactly {name}; the
/// error names the first class without one.
Result<std::vector<std::size_t>> singleClassComponents(const project::ProjectSpec& spec,
                                                       const std::vector<std::string>& componentNames,
                                                       const std::vector<std::string>& classes);

struct KScalingStageOptions {
    std::vector<long long> ks{2, 4, 8, 16, 32, 64, 128, 256, 512};
    long long seeds = 5;                     // DP seeds 0..seeds-1 per (class, k)
    std::optional<double> epsilon;           // unset: the spec's first
    std::optional<std::uint64_t> splitSeed;  // ρ split; unset: the study seed
    int threads = 0;
    // The non-private reference: α = F(λ_DP) − F(λ*) is exact to this FW-gap certificate. The
    // solver's cost grows as the gap shrinks (nested class subsets are nearly collinear), so the
    // default is looser than experiments::KScalingOptions' 1e-8; the gaps reached are reported.
    double gapTolerance = 1e-6;
    long long maxClasses = 0;  // 0: every class; else the first N one-vs-rest tasks
    pipeline::ProxyOptions proxy;
};

struct KScalingStageReport {
    long long runId = 0;
    std::vector<std::string> classes;  // the one-vs-rest tasks
    long long splitA = 0;
    double epsilon = 0.0;
    std::vector<long long> ks;
    std::vector<double> meanExcess;      // per k, averaged over the classes' seed means
    std::vector<double> stdOverClasses;  // per k, std of the classes' means
    std::vector<double> maxGap;          // per k, the largest FW gap of the classes' λ*
    std::vector<experiments::KScalingResult> perClass;
    experiments::SlopeFit fit;
    bool fitted = false;
    std::string fitError;
};

/// Errors name the flag (--ks, --seeds, --epsilon).
Status checkKScalingStageOptions(const KScalingStageOptions& options);

/// What every one-vs-rest class of the k-scaling computes from, gathered once from the project:
/// the proxy's class probabilities on split A, each class's labels there, and the spec's
/// DP-MixMin settings. The local run and the cluster units (kscaling_units.h) share it.
struct KScalingInputs {
    std::vector<std::string> classes;  // the one-vs-rest tasks run
    double epsilon = 0.0;
    long long splitA = 0;
    std::uint64_t splitSeed = 0;
    Eigen::MatrixXd classProbabilities;    // n_A × C, over every class of the source
    std::vector<std::vector<int>> labels;  // per task: the n_A one-vs-rest labels
    project::MixtureStage mixture;         // clip, batch, lr, steps of the spec
    double delta = 0.0;
    privacy::Accountant accountant = privacy::Accountant::Prv;
};

/// Obtains the proxy (reusing or training it) and computes the inputs.
Result<KScalingInputs> prepareKScaling(project::ProjectFile& project, const KScalingStageOptions& options,
                                       const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                       const pipeline::LogSink& log = {});

/// One class's excess-vs-k rows (every k and seed).
Result<experiments::KScalingResult> runKScalingClass(const KScalingInputs& inputs, std::size_t classIndex,
                                                     const KScalingStageOptions& options,
                                                     const ProgressCallback& progress = {},
                                                     const CancellationToken& cancel = {});

/// Summarises the classes' results and stores the k-scaling run (`provenance`, when given, as an
/// info log line of the run: a cluster merge's mark).
Result<KScalingStageReport> storeKScalingResults(project::ProjectFile& project, const KScalingInputs& inputs,
                                                 const KScalingStageOptions& options,
                                                 std::vector<experiments::KScalingResult> perClass,
                                                 const std::string& provenance);

Result<KScalingStageReport> runKScalingExperiment(project::ProjectFile& project, const KScalingStageOptions& options,
                                                  const ProgressCallback& progress = {},
                                                  const CancellationToken& cancel = {},
                                                  const pipeline::LogSink& log = {});

struct SweepStageOptions {
    std::vector<double> values;              // ρ values (rho-sweep) or ε values (epsilon-sweep; +inf allowed)
    long long seeds = 3;                     // DP seeds 0..seeds-1
    std::optional<double> epsilon;           // rho-sweep: the ε of the DP runs; unset: the spec's first
    std::optional<std::uint64_t> splitSeed;  // epsilon-sweep: ρ split; unset: the study seed
    int threads = 0;
    pipeline::ProxyOptions proxy;
};

struct RhoSweepStageReport {
    double epsilon = 0.0;
    std::vector<std::string> tasks;
    std::vector<experiments::RhoSweepResult> perTask;
    std::vector<std::vector<long long>> runIds;  // [task][rho]
};

struct EpsilonSweepStageReport {
    long long splitA = 0;
    std::vector<std::string> tasks;
    std::vector<experiments::EpsilonSweepResult> perTask;
    std::vector<std::vector<long long>> runIds;  // [task][epsilon]
};

/// Errors name --rhos / --epsilons / --seeds.
Status checkRhoSweepStageOptions(const SweepStageOptions& options);
Status checkEpsilonSweepStageOptions(const SweepStageOptions& options);

/// One stored run per (task, ρ): method "rho-sweep", metrics cosine/l1/excess mean and std.
Result<RhoSweepStageReport> runRhoSweepExperiment(project::ProjectFile& project, const SweepStageOptions& options,
                                                  const ProgressCallback& progress = {},
                                                  const CancellationToken& cancel = {},
                                                  const pipeline::LogSink& log = {});

/// One stored run per (task, ε): method "epsilon-sweep" (ε = +inf: no run ε, config
/// "non_private": true), metrics cosine/l1 mean and std and sigma.
Result<EpsilonSweepStageReport> runEpsilonSweepExperiment(project::ProjectFile& project,
                                                          const SweepStageOptions& options,
                                                          const ProgressCallback& progress = {},
                                                          const CancellationToken& cancel = {},
                                                          const pipeline::LogSink& log = {});

}  // namespace dpmix::experiment_runs
