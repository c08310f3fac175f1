#include "engine/executor/cluster_submission.h"

#include "engine/executor/adamix_units.h"
#include "engine/executor/audit_units.h"
#include "engine/executor/cluster_process.h"
#include "engine/executor/run_units.h"
#include "engine/study_plan/data_parallel.h"

namespace dpmix::executor {

Status checkSlurmOptions(const cluster::SlurmOptions& slurm) {
    if (slurm.maxParallel < 0) return Error{"max-parallel must be >= 0 (0: no limit)", "max-parallel"};
    if (slurm.cpusPerTask < 1) return Error{"cpus-per-task must be >= 1", "cpus-per-task"};
    if (slurm.gpusPerTask < 0) return Error{"gpus-per-task must be >= 0", "gpus-per-task"};
    return std::nullopt;
}

Result<cluster::SubmitReport> submitStudyRunToSlurm(project::ProjectFile& project,
                                                    const pipeline::StudyRunOptions& options,
                                                    const cluster::SlurmOptions& slurm,
                                                    const ProgressCallback& progress, const CancellationToken& cancel,
                                                    const pipeline::LogSink& log) {
    if (auto e = checkSlurmOptions(slurm)) return *e;
    const auto sources = project.sources();
    if (!sources) return sources.error();
    if (auto why =
            study_plan::dataParallelRefusal(slurm.ranks, project::isTextStudy(*sources), project.spec(), options))
        return Error{"ranks " + std::to_string(slurm.ranks) + ": " + *why + ". Nothing was submitted", "ranks"};
    // A host that cannot submit changes nothing: no proxy is trained for a job that cannot start.
    if (auto e = cluster::checkCanSubmit()) return *e;
    auto frozen = freezeStudyRun(project, options, progress, cancel, log);
    if (!frozen) return frozen.error();
    const auto units = studyRunWorkUnits(study_plan::resolveRunChoices(project.spec(), options).seeds);
    auto report = cluster::submitJob(project, cluster::JobKind::Run, *frozen, units, slurm, false,
                                     [&](const std::filesystem::path& dir) { return snapshotProject(project, dir); });
    if (report) return report;
    // Nothing was submitted: the grid's reservation goes with it (a failure to settle it leaves
    // it counted, the safe side, and is said after the submission's own error).
    if (auto e = releaseUnsubmittedRun(project, *frozen))
        return Error{report.error().message + "; the grid's budget reservation stays counted: " + e->message};
    return report.error();
}

Result<cluster::SubmitReport> submitAuditToSlurm(project::ProjectFile& project,
                                                 const audit_runs::AuditStageOptions& options, long long units,
                                                 const cluster::SlurmOptions& slurm, const ProgressCallback& progress,
                                                 const CancellationToken& cancel, const pipeline::LogSink& log) {
    if (slurm.ranks != 1) return Error{"ranks: a mixture audit runs in one process per array task", "ranks"};
    auto workUnits = cluster::auditWorkUnits(options.runs, units, options.seed);
    if (!workUnits) return workUnits.error();
    if (auto e = checkSlurmOptions(slurm)) return *e;
    if (auto e = cluster::checkCanSubmit()) return *e;
    auto frozen = freezeAuditStage(project, options, progress, cancel, log);
    if (!frozen) return frozen.error();
    return cluster::submitJob(project, cluster::JobKind::Audit, *frozen, *workUnits, slurm, false);
}

Result<cluster::SubmitReport> submitSweepToSlurm(project::ProjectFile& project, SweepKind kind,
                                                 const experiment_runs::SweepStageOptions& options,
                                                 const cluster::SlurmOptions& slurm, const ProgressCallback& progress,
                                                 const CancellationToken& cancel, const pipeline::LogSink& log) {
    if (slurm.ranks != 1) return Error{"ranks: a sweep's runs go one process per array task", "ranks"};
    if (auto e = checkSlurmOptions(slurm)) return *e;
    if (auto e = cluster::checkCanSubmit()) return *e;
    auto frozen = freezeSweep(project, kind, options, progress, cancel, log);
    if (!frozen) return frozen.error();
    return cluster::submitJob(project, cluster::JobKind::Sweep, *frozen, sweepWorkUnits(options.values), slurm, false,
                              [&](const std::filesystem::path& dir) { return snapshotProject(project, dir); });
}

Result<cluster::SubmitReport> submitKScalingToSlurm(project::ProjectFile& project,
                                                    const experiment_runs::KScalingStageOptions& options,
                                                    const cluster::SlurmOptions& slurm,
                                                    const ProgressCallback& progress, const CancellationToken& cancel,
                                                    const pipeline::LogSink& log) {
    if (auto e = checkSlurmOptions(slurm)) return *e;
    if (auto e = cluster::checkCanSubmit()) return *e;
    auto frozen = freezeKScaling(project, options, progress, cancel, log);
    if (!frozen) return frozen.error();
    auto classes = frozenKScalingClasses(*frozen);
    if (!classes) return classes.error();
    return cluster::submitJob(project, cluster::JobKind::KScaling, *frozen, kScalingWorkUnits(*classes), slurm, false);
}

Result<cluster::SubmitReport> submitAdamixToSlurm(project::ProjectFile& project,
                                                  const experiment_runs::AdamixExperimentOptions& options,
                                                  const cluster::SlurmOptions& slurm, const ProgressCallback& progress,
                                                  const CancellationToken& cancel, const pipeline::LogSink& log) {
    if (auto e = checkSlurmOptions(slurm)) return *e;
    if (auto e = cluster::checkCanSubmit()) return *e;
    auto frozenOrError = freezeAdamixExperiment(project, options, progress, cancel, log);
    if (!frozenOrError) return frozenOrError.error();
    const FrozenAdamixExperiment frozen = std::move(frozenOrError).value();
    // The binary inputs go into the job directory before sbatch; spec.json names their hash.
    const std::string& inputs = frozen.inputs;
    return cluster::submitJob(project, cluster::JobKind::Adamix, frozen.json, adamixWorkUnits(options.grid), slurm,
                              false, [&inputs](const std::filesystem::path& dir) {
                                  return cluster::writeAtomically(dir / kAdamixInputsFile, inputs);
                              });
}

}  // namespace dpmix::executor
