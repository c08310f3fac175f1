#pragma once
// What one Run-menu action asks for, as plain values the GUI fills in and a RunController
// turns into stage jobs: a DP-MixMin run, the comparison with the four baselines, the ε sweep
// (teaching demo), a canary audit, Private Set Generation, or a re-run of a stored run.
#include "engine/executor/cluster_jobs.h"
#include "engine/project/project_records.h"
#include "widgets/run_parameters.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace dpmix::workbench {

enum class RunKind { DpMixMin, CompareBaselines, EpsilonSweep, Audit, PrivateSet, Rerun };

/// "Run DP-MixMin", "Compare with baselines", ... (for messages and job names).
QString runKindLabel(RunKind kind);

/// The Audit dialog's choices (engine/audit_runs/audit_stage.h AuditStageOptions).
struct AuditSettings {
    QString task;                 // a sensitive task of the project's spec
    bool naturalCanary = false;   // false: the max-clip canary
    long long runs = 2000;        // R, runs per world
    bool noNoise = false;         // the no-noise control (claimed ε = +inf)
    long long seed = 0;           // ρ split, natural canary choice and audit seed
    bool quietestSource = false;  // max-clip: push the quietest source instead of the top one (docs/AUDIT.md)
    // Empty: the mixture step (the canaries above). "dirichlet", "dp-sgd" or "sgd": a fine-tuning
    // mechanism, audited with `trainingCanary` (docs/AUDIT.md, "Auditing fine-tuning mechanisms").
    QString mechanism;
    QString trainingCanary = QStringLiteral("large-norm");  // flipped-label, large-norm, gradient-aligned
    // A fine-tuning mechanism audited in one training of the study's own fine-tuning (m canaries,
    // each in with probability 1/2) instead of `runs` trainings of a logistic head per world.
    bool oneRun = false;
    bool whiteBox = false;      // one run: canary gradients (DP-SGD and SGD only) instead of canary images
    long long canaries = 1000;  // one run: m
    // One run of a stored run's fine-tuning: the values it ran with (unset: the spec's).
    struct Finetune {
        double clip = 0.0;
        long long batch = 0;
        double lr = 0.0;
        long long steps = 0;
        bool operator==(const Finetune&) const = default;
    };
    std::optional<Finetune> finetune;

    bool operator==(const AuditSettings&) const = default;
};

/// The Private set dialog's choices (engine/experiment_runs/psg_stage.h PsgStageOptions); ε, δ, the
/// accountant and reproducibility come from the panel.
struct PsgSettings {
    int imagesPerClass = 10;   // 1, 10, 20 or 50
    long long iterations = 3;  // fresh networks matched (each about 5 minutes on 2 cores at spc 10)
    int evaluations = 3;       // networks trained on S per architecture
    int evaluationEpochs = 300;
    bool references = true;      // the random-real-subset and direct DP-SGD reference runs
    long long dpSgdSteps = 300;  // the DP-SGD reference's steps
    long long seed = 0;

    bool operator==(const PsgSettings&) const = default;
};

/// "Run on cluster…": the action goes to Slurm as one job array instead of running here
/// (docs/CLUSTER.md, "From the workbench"); Run DP-MixMin, Compare with baselines, the ε sweep
/// and the mixture audit only. With secret randomness every attempt at a task is a release.
struct ClusterSubmission {
    executor::cluster::SlurmOptions slurm;
    long long auditUnits = 8;  // the audit's array tasks (even: each world's runs in units/2 blocks)
};

/// The ε sweep's choices (the teaching demo): the ε values, whether every method runs through
/// pretraining, fine-tuning and evaluation, and which tasks and methods, so a class can see
/// utility against ε for one task and three methods in minutes instead of the whole study.
struct SweepScope {
    std::vector<double> epsilons;      // at least two
    bool fullPipeline = false;         // also pretrain, fine-tune and evaluate
    std::vector<std::string> tasks;    // sensitive tasks; empty: every task
    std::vector<std::string> methods;  // full pipeline: the downstream methods; empty: all five
    // Full pipeline: pretraining and fine-tuning steps for every cell (the teacher's short
    // training, as the demo runs it); unset: the panel's Advanced values.
    std::optional<long long> trainingSteps;

    bool operator==(const SweepScope&) const = default;
};

/// "full pipeline at ε = 0.5, 1, 2; task warm clothing; DP-MixMin, Uniform, Random Init" (job
/// names, the cluster dialog): what the sweep will run, with "every task" / "all five methods".
QString sweepScopeText(const SweepScope& scope);

struct RunAction {
    RunKind kind = RunKind::DpMixMin;
    widgets::RunParameters parameters;         // the panel's values (every kind but Rerun)
    SweepScope sweep;                          // EpsilonSweep
    AuditSettings audit;                       // Audit
    PsgSettings psg;                           // PrivateSet
    std::optional<project::RunRecord> rerun;   // Rerun: the stored run to repeat
    std::optional<long long> rerunSeed;        // Rerun: a new seed (unset: the run's own)
    std::optional<ClusterSubmission> cluster;  // set: submitted to Slurm, not run here
    // CompareBaselines: learn (and spend) DP-MixMin's λ again even where the project released it
    // for the same settings (StudyRunOptions::relearnMixture; Run ▸ Learn the mixture again).
    bool relearnMixture = false;
};

}  // namespace dpmix::workbench
