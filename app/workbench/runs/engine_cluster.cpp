#include "app/workbench/runs/engine_cluster.h"

#include "app/workbench/runs/engine_study.h"
#include "engine/pipeline/cluster_submission.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <sstream>

namespace dpmix::workbench {
namespace {

std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

// One differing value as "mixture clip 5 (spec 13)".
void compare(std::vector<std::string>& differences, const std::string& name, double panel, double spec) {
    if (panel != spec) differences.push_back(name + " " + number(panel) + " (spec " + number(spec) + ")");
}

}  // namespace

Status dropStageValuesOfSpec(const project::ProjectSpec& spec, pipeline::StudyRunOptions& options) {
    std::vector<std::string> differences;
    if (options.mixture) {
        compare(differences, "mixture clip", options.mixture->clip, spec.mixture.clip);
        compare(differences, "mixture batch", static_cast<double>(options.mixture->batch), static_cast<double>(spec.mixture.batch));
        compare(differences, "mixture learning rate", options.mixture->lr, spec.mixture.lr);
        compare(differences, "mixture steps", static_cast<double>(options.mixture->steps), static_cast<double>(spec.mixture.steps));
    }
    if (options.pretrain) {
        compare(differences, "pretraining batch", static_cast<double>(options.pretrain->batch), static_cast<double>(spec.pretrain.batch));
        compare(differences, "pretraining learning rate", options.pretrain->lr, spec.pretrain.lr);
        compare(differences, "pretraining steps", static_cast<double>(options.pretrain->steps), static_cast<double>(spec.pretrain.steps));
    }
    if (options.finetune) {
        compare(differences, "fine-tuning clip", options.finetune->clip, spec.finetune.clip);
        compare(differences, "fine-tuning batch", static_cast<double>(options.finetune->batch), static_cast<double>(spec.finetune.batch));
        compare(differences, "fine-tuning learning rate", options.finetune->lr, spec.finetune.lr);
        compare(differences, "fine-tuning steps", static_cast<double>(options.finetune->steps), static_cast<double>(spec.finetune.steps));
    }
    if (options.adamix) {
        compare(differences, "AdaMix-R steps T", static_cast<double>(options.adamix->steps), static_cast<double>(spec.finetune.steps));
        compare(differences, "AdaMix-R step size η", options.adamix->eta, spec.finetune.lr);
    }
    if (!differences.empty()) {
        std::string list;
        for (const auto& d : differences) list += (list.empty() ? "" : ", ") + d;
        return Error{"Run on cluster takes the study's stage values from its spec, and the panel's Advanced values "
                     "differ: " + list + ". Set them back to the spec's, or run here (Run ▸ Run DP-MixMin)."};
    }
    options.mixture.reset();
    options.pretrain.reset();
    options.finetune.reset();
    options.adamix.reset();
    return std::nullopt;
}

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
    if (auto e = pipeline::cluster::checkCanSubmit()) return e;
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

Result<pipeline::cluster::SubmitReport> EngineClusterBackend::submitStudy(project::ProjectFile& project,
                                                                          const StudyRequest& request,
                                                                          const ClusterSubmission& submission,
                                                                          const ProgressCallback& progress,
                                                                          const CancellationToken& cancel,
                                                                          const StudyLog& log) {
    auto checked = studyRunOptionsFor(project, request);
    if (!checked) return checked.error();
    pipeline::StudyRunOptions options = std::move(checked).value();
    if (auto differs = dropStageValuesOfSpec(project.spec(), options)) return *differs;
    auto worker = withWorker(*this, submission);
    if (!worker) return worker.error();
    auto report = pipeline::submitStudyRunToSlurm(project, options, worker->slurm, progress, cancel, log);
    if (!report) return report.error();
    return report;
}

Result<pipeline::cluster::SubmitReport> EngineClusterBackend::submitAudit(project::ProjectFile& project,
                                                                          const AuditRequest& request,
                                                                          const ClusterSubmission& submission,
                                                                          const ProgressCallback& progress,
                                                                          const CancellationToken& cancel,
                                                                          const StudyLog& log) {
    auto options = auditStageOptionsFor(project, request);
    if (!options) return options.error();
    auto worker = withWorker(*this, submission);
    if (!worker) return worker.error();
    auto report = pipeline::submitAuditToSlurm(project, *options, worker->auditUnits, worker->slurm, progress, cancel, log);
    if (!report) return report.error();
    return report;
}

Result<std::vector<pipeline::cluster::JobStatus>> EngineClusterBackend::status(const std::filesystem::path& project) const {
    return pipeline::cluster::jobStatus(project);
}

Result<std::vector<pipeline::cluster::MergeReport>> EngineClusterBackend::merge(project::ProjectFile& project,
                                                                                const std::string& jobId) {
    return pipeline::cluster::mergeJobs(project, jobId);
}

Status EngineClusterBackend::cancel(const std::filesystem::path& project, const std::string& jobId) {
    return pipeline::cluster::cancelJob(project, jobId);
}

Result<pipeline::cluster::SubmitReport> EngineClusterBackend::resubmitFailed(const std::filesystem::path& project,
                                                                             const std::string& jobId) {
    return pipeline::cluster::resubmitFailed(project, jobId);
}

}  // namespace dpmix::workbench
