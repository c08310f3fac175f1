#include "app/workbench/runs/engine_cluster.h"

#include "app/workbench/runs/engine_study.h"
#include "engine/executor/cluster_submission.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace dpmix::workbench {
EngineClusterBackend::EngineClusterBackend(std::string workerProgram) : workerProgram_(std::move(workerProgram)) {}

Result<std::string> EngineClusterBackend::workerProgram() const {
    if (!workerProgram_.empty()) return workerProgram_;
    // The workbench cannot be the worker (it has no `worker` command): its sibling dpmix is.
    const QString sibling = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("dpmix"));
    if (QFileInfo(sibling).isExecutable()) return sibling.toStdString();
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("dpmix"));
    if (!onPath.isEmpty()) return onPath.toStdString();
    return Error{"the dpmix command-line program, which each array task runs, is neither next to the workbench (" +
                 QCoreApplication::applicationDirPath().toStdString() + ") nor on PATH"};
}

Status EngineClusterBackend::canSubmit() const {
    if (auto e = executor::cluster::checkCanSubmit()) return e;
    if (auto program = workerProgram(); !program) return program.error();
    return std::nullopt;
}

namespace {
// The submission with the worker program filled in (a user-given one is kept).
Result<ClusterSubmission> withWorker(const EngineClusterBackend& backend, ClusterSubmission submission) {
    if (!submission.slurm.program.empty()) return submission;
    auto program = backend.workerProgram();
    if (!program) return program.error();
    submission.slurm.program = *program;
    return submission;
}
}  // namespace

Result<executor::cluster::SubmitReport> EngineClusterBackend::submitStudy(
    project::ProjectFile& project, const StudyRequest& request, const ClusterSubmission& submission,
    const ProgressCallback& progress, const CancellationToken& cancel, const StudyLog& log) {
    // The panel's values, Advanced ones included, travel in the frozen run as a local run takes them.
    auto options = studyRunOptionsFor(project, request);
    if (!options) return options.error();
    auto worker = withWorker(*this, submission);
    if (!worker) return worker.error();
    auto report = executor::submitStudyRunToSlurm(project, *options, worker->slurm, progress, cancel, log);
    if (!report) return report.error();
    return report;
}

Result<executor::cluster::SubmitReport> EngineClusterBackend::submitAudit(
    project::ProjectFile& project, const AuditRequest& request, const ClusterSubmission& submission,
    const ProgressCallback& progress, const CancellationToken& cancel, const StudyLog& log) {
    auto options = auditStageOptionsFor(project, request);
    if (!options) return options.error();
    auto worker = withWorker(*this, submission);
    if (!worker) return worker.error();
    auto report =
        executor::submitAuditToSlurm(project, *options, worker->auditUnits, worker->slurm, progress, cancel, log);
    if (!report) return report.error();
    return report;
}

Result<std::vector<executor::cluster::JobStatus>> EngineClusterBackend::status(
    const std::filesystem::path& project) const {
    return executor::cluster::jobStatus(project);
}

Result<std::vector<executor::cluster::MergeReport>> EngineClusterBackend::merge(project::ProjectFile& project,
                                                                                const std::string& jobId) {
    return executor::cluster::mergeJobs(project, jobId);
}

Status EngineClusterBackend::cancel(const std::filesystem::path& project, const std::string& jobId) {
    return executor::cluster::cancelJob(project, jobId);
}

Result<executor::cluster::SubmitReport> EngineClusterBackend::resubmitFailed(const std::filesystem::path& project,
                                                                             const std::string& jobId) {
    return executor::cluster::resubmitFailed(project, jobId);
}

}  // namespace dpmix::workbench
