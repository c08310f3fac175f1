#pragma once
// A submission to Slurm as one call (docs/CLUSTER.md), shared by `dpmix run|audit --executor
// slurm` and the workbench's "Run on cluster…": the host is checked first (sbatch on PATH), then
// the work is frozen exactly as the local command would start it (the proxy obtained, the whole
// grid's privacy budget checked), the job directory written and one job array submitted. Any
// refusal leaves the project as it was, except a proxy trained on the way (as a local run keeps it).
#include "engine/audit_runs/audit_stage.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/kscaling_units.h"
#include "engine/executor/sweep_units.h"
#include "engine/experiment_runs/adamix_experiment_stage.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"

namespace dpmix::executor {

/// The Slurm values out of range; the error's field ("max-parallel", "cpus-per-task",
/// "gpus-per-task") lets each front end word it as its own flag or field.
Status checkSlurmOptions(const cluster::SlurmOptions& slurm);

/// A reproducible study run's grid, one array task per seed (run_units.h).
Result<cluster::SubmitReport> submitStudyRunToSlurm(
    project::ProjectFile& project, const pipeline::StudyRunOptions& options, const cluster::SlurmOptions& slurm,
    const ProgressCallback& progress = {}, const CancellationToken& cancel = {}, const pipeline::LogSink& log = {});

/// The mixture audit, each world's runs in `units / 2` blocks (audit_units.h).
Result<cluster::SubmitReport> submitAuditToSlurm(project::ProjectFile& project,
                                                 const audit_runs::AuditStageOptions& options, long long units,
                                                 const cluster::SlurmOptions& slurm,
                                                 const ProgressCallback& progress = {},
                                                 const CancellationToken& cancel = {},
                                                 const pipeline::LogSink& log = {});

/// An ε or ρ sweep, one array task per sweep point (sweep_units.h).
Result<cluster::SubmitReport> submitSweepToSlurm(project::ProjectFile& project, SweepKind kind,
                                                 const experiment_runs::SweepStageOptions& options,
                                                 const cluster::SlurmOptions& slurm,
                                                 const ProgressCallback& progress = {},
                                                 const CancellationToken& cancel = {},
                                                 const pipeline::LogSink& log = {});

/// The k-scaling, one array task per one-vs-rest class (kscaling_units.h).
Result<cluster::SubmitReport> submitKScalingToSlurm(project::ProjectFile& project,
                                                    const experiment_runs::KScalingStageOptions& options,
                                                    const cluster::SlurmOptions& slurm,
                                                    const ProgressCallback& progress = {},
                                                    const CancellationToken& cancel = {},
                                                    const pipeline::LogSink& log = {});

/// The AdaMix-R experiment, one array task per seed × private-per-class value (adamix_units.h).
Result<cluster::SubmitReport> submitAdamixToSlurm(project::ProjectFile& project,
                                                  const experiment_runs::AdamixExperimentOptions& options,
                                                  const cluster::SlurmOptions& slurm,
                                                  const ProgressCallback& progress = {},
                                                  const CancellationToken& cancel = {},
                                                  const pipeline::LogSink& log = {});

}  // namespace dpmix::executor
