#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/parameters/accountant_choice.h"
#include "app/workbench/parameters/number_parsing.h"

#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/runs/cluster_backend.h"
#include "app/workbench/runs/run_requests.h"

#include <stdexcept>

namespace dpmix::workbench {

namespace {
// The request of a study action: DP-MixMin's (proxies → mixture) or Compare with baselines'
// (the five methods downstream).
Result<StudyRequest> studyActionRequest(const RunAction& action) {
    if (action.kind == RunKind::DpMixMin) return studyRequestFor(action.parameters);
    auto request = compareRequestFor(action.parameters);
    if (!request) return request;
    StudyRequest compare = std::move(request).value();
    compare.relearnMixture = action.relearnMixture;
    return compare;
}
}  // namespace

Result<StudyRequest> studyRequestFor(const widgets::RunParameters& parameters) {
    auto seeds = parseSeeds(parameters.seeds);
    if (!seeds) return seeds.error();
    StudyRequest request;
    request.epsilons = {parameters.epsilon};
    request.rho = parameters.rho;
    request.seeds = *seeds;
    request.reproducible = parameters.reproducible;
    request.accountant = engineAccountant(parameters.accountant);
    auto cap = parseBudgetCap(parameters.budgetCap);
    if (!cap) return cap.error();
    request.budgetCap = *cap;
    // The panel's Advanced values are the mixture stage's hyper-parameters.
    request.mixture =
        MixtureSettings{parameters.clipNorm, parameters.batchSize, parameters.learningRate, parameters.steps};
    request.pretrain =
        PretrainSettings{parameters.pretrainBatch, parameters.pretrainLearningRate, parameters.pretrainSteps};
    // Fine-tuning: the fields of the spec's mechanism only (an AdaMix-R study has no clip or batch).
    if (parameters.finetunesWithAdamix())
        request.adamix = AdamixFinetuneSettings{parameters.adamixSteps, parameters.adamixEta};
    else
        request.finetune = FinetuneSettings{parameters.finetuneClip, parameters.finetuneBatch,
                                            parameters.finetuneLearningRate, parameters.finetuneSteps};
    return request;
}

EngineRunController::EngineRunController(StudyFunction study, QObject* parent)
    : QObject(parent), study_(std::move(study)) {}

void EngineRunController::setProject(const QString& path, bool readOnly) {
    project_ = path;
    readOnly_ = readOnly;
}

Status EngineRunController::checkProject() const {
    if (project_.isEmpty())
        return Error{"No project is open: open a .dpmix project (or create one from a spec) before running."};
    if (readOnly_) return Error{("The project " + project_ + " is open read-only: runs are disabled.").toStdString()};
    return std::nullopt;
}

Result<QList<StageJob>> EngineRunController::planRun(const widgets::RunParameters& parameters) {
    RunAction action;
    action.parameters = parameters;
    return planAction(action);
}

Result<QList<StageJob>> EngineRunController::planAction(const RunAction& action) {
    if (auto error = checkProject()) return *error;
    if (action.cluster) return planClusterAction(action);
    const widgets::RunParameters& p = action.parameters;
    switch (action.kind) {
        case RunKind::DpMixMin: {
            auto request = studyRequestFor(p);
            if (!request) return request.error();
            return QList<StageJob>{studyJob(
                tr("DP-MixMin: proxies → mixture (ε = %1, ρ = %2, seeds %3)").arg(p.epsilon).arg(p.rho).arg(p.seeds),
                *request)};
        }
        case RunKind::CompareBaselines: {
            auto request = studyActionRequest(action);
            if (!request) return request.error();
            return QList<StageJob>{
                studyJob(tr("Compare with baselines: 5 methods through pretrain → finetune → evaluate "
                            "(ε = %1, seeds %2)")
                             .arg(p.epsilon)
                             .arg(p.seeds),
                         *request)};
        }
        case RunKind::EpsilonSweep: {
            auto request = sweepRequestFor(p, action.sweep);
            if (!request) return request.error();
            return QList<StageJob>{
                studyJob(tr("ε sweep (%1), seeds %2").arg(sweepScopeText(action.sweep), p.seeds), *request)};
        }
        case RunKind::Audit: {
            if (!audit_) return Error{"Audit: this workbench was started without the audit stage (no audit function)."};
            auto request = auditRequestFor(p, action.audit);
            if (!request) return request.error();
            return QList<StageJob>{auditJob(tr("Audit of task %1: %2 canary%3, %4 runs per world")
                                                .arg(action.audit.task,
                                                     action.audit.naturalCanary    ? tr("natural")
                                                     : action.audit.quietestSource ? tr("max-clip (quietest source)")
                                                                                   : tr("max-clip"),
                                                     action.audit.noNoise ? tr(" (no-noise control)") : QString())
                                                .arg(action.audit.runs),
                                            *request)};
        }
        case RunKind::PrivateSet: {
            if (!psg_) return Error{"Private set: this workbench was started without the PSG stage (no PSG function)."};
            const PsgSettings& g = action.psg;
            PsgRequest request;
            request.imagesPerClass = g.imagesPerClass;
            request.iterations = g.iterations;
            request.epsilon = p.epsilon;
            request.evaluations = g.evaluations;
            request.evaluationEpochs = g.evaluationEpochs;
            request.references = g.references;
            request.dpSgdSteps = g.dpSgdSteps;
            request.seed = g.seed;
            request.reproducible = p.reproducible;
            request.accountant = engineAccountant(p.accountant);
            return QList<StageJob>{psgJob(tr("Private set (PSG): %1 images per class, %2 iterations, ε = %3")
                                              .arg(g.imagesPerClass)
                                              .arg(g.iterations)
                                              .arg(p.epsilon),
                                          request)};
        }
        case RunKind::Rerun: {
            if (!action.rerun) return Error{"Re-run: no stored run was chosen."};
            auto plan = rerunPlanFor(*action.rerun, action.rerunSeed);
            if (!plan) return plan.error();
            if (plan->audit && !audit_)
                return Error{
                    "Re-run of an audit: this workbench was started without the audit stage (no audit function)."};
            if (plan->audit) return QList<StageJob>{auditJob(plan->description, *plan->audit)};
            return QList<StageJob>{studyJob(plan->description, *plan->study)};
        }
    }
    return Error{"unknown run kind"};
}

std::optional<Result<std::vector<privacy::BudgetRelease>>> EngineRunController::plannedReleases(
    const RunAction& action) {
    if (!plan_ || project_.isEmpty()) return std::nullopt;
    if (action.kind != RunKind::DpMixMin && action.kind != RunKind::CompareBaselines) return std::nullopt;
    auto request = studyActionRequest(action);
    if (!request) return Result<std::vector<privacy::BudgetRelease>>(request.error());
    StudyRequest planned = std::move(request).value();
    planned.device = device_;
    // On the calling (GUI) thread, with a handle of its own: ProjectFile is one-per-thread.
    auto file = project::ProjectFile::open(project_.toStdString());
    if (!file) return Result<std::vector<privacy::BudgetRelease>>(file.error());
    project::ProjectFile project = std::move(file).value();
    return plan_(project, planned);
}

std::optional<Result<RunTimeEstimate>> EngineRunController::estimatedTime(const RunAction& action) {
    if (!estimate_ || project_.isEmpty()) return std::nullopt;
    if (action.kind != RunKind::DpMixMin && action.kind != RunKind::CompareBaselines) return std::nullopt;
    auto request = studyActionRequest(action);
    if (!request) return Result<RunTimeEstimate>(request.error());
    StudyRequest estimated = std::move(request).value();
    estimated.device = device_;
    auto file = project::ProjectFile::open(project_.toStdString());  // the GUI thread's own handle
    if (!file) return Result<RunTimeEstimate>(file.error());
    project::ProjectFile project = std::move(file).value();
    return estimate_(project, estimated);
}

StageJob EngineRunController::projectJob(const QString& name, const std::string& finished, ProjectWork work) {
    StageJob job;
    job.stage = name;
    job.work = [this, path = project_.toStdString(), finished, work = std::move(work)](
                   const CancellationToken& token, const ProgressCallback& progress) -> Status {
        const StudyLog log = [this](const std::string& line) { Q_EMIT logged(QString::fromStdString(line)); };
        log("Opening " + path);
        auto file = project::ProjectFile::open(path);
        if (!file) return file.error();
        project::ProjectFile project = std::move(file).value();
        if (auto error = work(project, progress, token, log)) {
            log("Stopped: " + error->message);
            return error;  // after a cancel the job is cancelled (the stage marked its run so)
        }
        log(finished);
        return std::nullopt;
    };
    return job;
}

StageJob EngineRunController::studyJob(const QString& name, const StudyRequest& given) {
    StudyRequest request = given;
    request.device = device_;
    return projectJob(name, "Study finished.",
                      [study = study_, request](project::ProjectFile& project, const ProgressCallback& progress,
                                                const CancellationToken& token, const StudyLog& log) {
                          return study(project, request, progress, token, log);
                      });
}

StageJob EngineRunController::auditJob(const QString& name, const AuditRequest& given) {
    AuditRequest request = given;
    request.device = device_;
    return projectJob(name, "Audit finished.",
                      [audit = audit_, request](project::ProjectFile& project, const ProgressCallback& progress,
                                                const CancellationToken& token, const StudyLog& log) -> Status {
                          if (!audit) return Error{"this build of the workbench has no audit stage"};
                          return audit(project, request, progress, token, log);
                      });
}

StageJob EngineRunController::psgJob(const QString& name, const PsgRequest& given) {
    PsgRequest request = given;
    request.device = device_;
    return projectJob(name, "Private set finished.",
                      [this, psg = psg_, request](project::ProjectFile& project, const ProgressCallback& progress,
                                                  const CancellationToken& token, const StudyLog& log) {
                          auto snapshot = [this](const PrivateSetImages& set) { Q_EMIT privateSetUpdated(set); };
                          return psg(project, request, progress, token, log, snapshot);
                      });
}

Result<QList<StageJob>> EngineRunController::planClusterAction(const RunAction& action) {
    const QString label = runKindLabel(action.kind);
    if (!cluster_) return Error{"Run on cluster: this workbench was started without the cluster executor."};
    if (auto cannot = cluster_->canSubmit()) return *cannot;
    const widgets::RunParameters& p = action.parameters;
    const bool study = action.kind == RunKind::DpMixMin || action.kind == RunKind::CompareBaselines ||
                       action.kind == RunKind::EpsilonSweep;
    if (!study && action.kind != RunKind::Audit)
        return Error{("\"" + label +
                      "\" runs here only: Run on cluster takes Run DP-MixMin, Compare with baselines, "
                      "the ε sweep and the mixture audit.")
                         .toStdString()};
    // A study run with secret randomness is a release: the engine reserves the grid at submission
    // and every attempt at a task before it runs (docs/CLUSTER.md, "Secret runs"); the stage says so.
    const QString randomness = p.reproducible ? QString() : tr("; secret randomness: every attempt is a release");
    switch (action.kind) {
        case RunKind::DpMixMin:
        case RunKind::CompareBaselines: {
            auto request = studyActionRequest(action);
            if (!request) return request.error();
            return QList<StageJob>{
                clusterStudyJob(tr("Submit to Slurm: %1 (ε = %2, seeds %3; one array task per seed%4)")
                                    .arg(label)
                                    .arg(p.epsilon)
                                    .arg(p.seeds, randomness),
                                *request, *action.cluster)};
        }
        case RunKind::EpsilonSweep: {
            auto request = sweepRequestFor(p, action.sweep);
            if (!request) return request.error();
            return QList<StageJob>{
                clusterStudyJob(tr("Submit to Slurm: ε sweep (%1), seeds %2; one array task per seed%3")
                                    .arg(sweepScopeText(action.sweep), p.seeds, randomness),
                                *request, *action.cluster)};
        }
        case RunKind::Audit: {
            if (!action.audit.mechanism.isEmpty())
                return Error{"Run on cluster runs the mixture audit; an audit of a fine-tuning mechanism runs here."};
            auto request = auditRequestFor(p, action.audit);
            if (!request) return request.error();
            return QList<StageJob>{
                clusterAuditJob(tr("Submit to Slurm: audit of task %1, %2 runs per world in %3 array tasks")
                                    .arg(action.audit.task)
                                    .arg(action.audit.runs)
                                    .arg(action.cluster->auditUnits),
                                *request, *action.cluster)};
        }
        default: return Error{"unknown run kind"};
    }
}

namespace {
void logSubmitted(const StudyLog& log, const executor::cluster::SubmitReport& report, const std::string& stores) {
    log("Submitted job " + report.jobId + " as Slurm job " + report.slurmJobId + " (" + std::to_string(report.units) +
        " array tasks), in " + report.dir.string() +
        ". The Cluster jobs view follows "
        "it and stores " +
        stores + " in the project when every task has finished.");
}
}  // namespace

StageJob EngineRunController::clusterJob(const QString& name, const std::string& stores, ClusterSubmit submit) {
    return projectJob(
        name, "Submission finished.",
        [this, submit = std::move(submit), stores](project::ProjectFile& project, const ProgressCallback& progress,
                                                   const CancellationToken& token, const StudyLog& log) -> Status {
            auto report = submit(project, progress, token, log);
            if (!report) return report.error();
            logSubmitted(log, *report, stores);
            Q_EMIT clusterJobSubmitted(QString::fromStdString(report->jobId));
            return std::nullopt;
        });
}

StageJob EngineRunController::clusterStudyJob(const QString& name, const StudyRequest& given,
                                              const ClusterSubmission& submission) {
    StudyRequest request = given;
    request.device = device_;
    return clusterJob(
        name, "its runs",
        [cluster = cluster_, request, submission](project::ProjectFile& project, const ProgressCallback& progress,
                                                  const CancellationToken& token, const StudyLog& log) {
            return cluster->submitStudy(project, request, submission, progress, token, log);
        });
}

StageJob EngineRunController::clusterAuditJob(const QString& name, const AuditRequest& given,
                                              const ClusterSubmission& submission) {
    AuditRequest request = given;
    request.device = device_;
    return clusterJob(
        name, "the audit",
        [cluster = cluster_, request, submission](project::ProjectFile& project, const ProgressCallback& progress,
                                                  const CancellationToken& token, const StudyLog& log) {
            return cluster->submitAudit(project, request, submission, progress, token, log);
        });
}

}  // namespace dpmix::workbench
