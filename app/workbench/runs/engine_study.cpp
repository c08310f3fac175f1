#include "app/workbench/runs/engine_study.h"

#include "engine/audit_runs/audit_stage.h"
#include "engine/audit_runs/one_run_audit_stage.h"
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/data/source_loader.h"
#include "engine/experiment_runs/psg_stage.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/study_runner.h"
#include "engine/runtime/runtime_info.h"

#include <cmath>

namespace dpmix::workbench {
namespace {

// The panel's Advanced values as the engine's mixture stage; what the panel does not set (the
// user-level group size) stays the spec's.
std::optional<project::MixtureStage> mixtureStageFor(const project::MixtureStage& spec,
                                                     const std::optional<MixtureSettings>& requested) {
    if (!requested) return std::nullopt;
    project::MixtureStage stage = spec;
    stage.clip = requested->clip;
    stage.batch = requested->batch;
    stage.lr = requested->lr;
    stage.steps = requested->steps;
    return stage;
}

std::optional<project::PretrainStage> pretrainStageFor(const std::optional<PretrainSettings>& requested) {
    if (!requested) return std::nullopt;
    return project::PretrainStage{requested->batch, requested->lr, requested->steps};
}

// Clip, batch, lr and steps; the runner keeps the spec's mechanism and user group size, and
// refuses them for a mechanism that does not use them (AdaMix-R: adamixStageFor).
std::optional<project::FinetuneStage> finetuneStageFor(const std::optional<FinetuneSettings>& requested) {
    if (!requested) return std::nullopt;
    project::FinetuneStage stage;
    stage.clip = requested->clip;
    stage.batch = requested->batch;
    stage.lr = requested->lr;
    stage.steps = requested->steps;
    return stage;
}

// AdaMix-R's T and η; its other settings are the spec's.
std::optional<pipeline::AdamixStageValues> adamixStageFor(const std::optional<AdamixFinetuneSettings>& requested) {
    if (!requested) return std::nullopt;
    return pipeline::AdamixStageValues{requested->steps, requested->eta};
}

}  // namespace

Result<project::SourceFacts> summarizeWithDataLayer(const data::SourceSpec& spec) {
    return pipeline::summarizeWithDataLayer(spec);
}

Result<pipeline::StudyRunOptions> studyRunOptionsFor(const project::ProjectFile& project, const StudyRequest& request) {
    // The panel's Advanced values run as given; the stored run config and ledger record them.
    pipeline::StudyRunOptions options;
    options.mixture = mixtureStageFor(project.spec().mixture, request.mixture);
    options.stages = request.stages;
    if (!request.methods.empty()) options.methods = request.methods;
    options.tasks = request.tasks;
    options.epsilons = request.epsilons;
    options.rho = request.rho;
    for (long long seed : request.seeds) options.seeds.push_back(static_cast<std::uint64_t>(seed));
    options.pretrain = pretrainStageFor(request.pretrain);
    options.finetune = finetuneStageFor(request.finetune);
    options.adamix = adamixStageFor(request.adamix);
    options.pretrainSteps = request.pretrainSteps;
    options.finetuneSteps = request.finetuneSteps;
    options.reproducible = request.reproducible;
    options.accountant = request.accountant;
    options.budgetCap = request.budgetCap;
    options.relearnMixture = request.relearnMixture;
    auto device = runtime::chooseDevice(request.device);
    if (!device) return device.error();
    options.device = *device;
    if (auto error = pipeline::checkImageStudyRun(project.spec(), options)) return *error;
    return options;
}

Result<std::vector<privacy::BudgetRelease>> planStudySpendWithEngine(project::ProjectFile& project,
                                                                     const StudyRequest& request) {
    auto options = studyRunOptionsFor(project, request);
    if (!options) return options.error();
    return pipeline::planStudyReleases(project, *options);
}

Result<RunTimeEstimate> estimateStudyWithEngine(project::ProjectFile& project, const StudyRequest& request) {
    auto options = studyRunOptionsFor(project, request);
    if (!options) return options.error();
    auto estimate = pipeline::estimateStudyRun(project, *options);
    if (!estimate) return estimate.error();
    return RunTimeEstimate{estimate->seconds, estimate->stepMilliseconds, estimate->batch};
}

Status runStudyWithEngine(project::ProjectFile& project, const StudyRequest& request, const ProgressCallback& progress,
                          const CancellationToken& cancel, const StudyLog& log) {
    auto options = studyRunOptionsFor(project, request);
    if (!options) return options.error();
    auto report = pipeline::runStudy(project, *options, progress, cancel, log);
    if (!report) return report.error();
    return std::nullopt;
}

namespace {

// The study's own fine-tuning audited in one training (docs/AUDIT.md, "One-run audits"); stored
// as an audit run whose verdict the ledger views show beside the entry it audits.
Status runOneRunAuditWithEngine(project::ProjectFile& project, const AuditRequest& request,
                                const ProgressCallback& progress, const CancellationToken& cancel,
                                const StudyLog& log) {
    audit_runs::OneRunAuditStageOptions options;
    options.task = request.task;
    if (!training_audit::parseAuditedMechanism(request.mechanism, options.mechanism))
        return Error{"mechanism: '" + request.mechanism + "' is not an audited mechanism", "mechanism"};
    options.whiteBox = request.whiteBox;
    if (!request.whiteBox && !training_audit::parseTrainingCanaryKind(request.trainingCanary, options.canary))
        return Error{"canary: '" + request.trainingCanary + "' is not a canary of a one-run audit", "canary"};
    options.canaries = request.canaries;
    if (request.finetune) {  // the audited run's own values, on the spec's mechanism and unit
        project::FinetuneStage stage = project.spec().finetune;
        stage.clip = request.finetune->clip;
        stage.batch = request.finetune->batch;
        stage.lr = request.finetune->lr;
        stage.steps = request.finetune->steps;
        options.finetune = stage;
    }
    options.epsilon = request.epsilon;
    options.accountant = request.accountant;
    options.seed = static_cast<std::uint64_t>(request.seed);
    auto device = runtime::chooseDevice(request.device);
    if (!device) return device.error();
    options.device = *device;
    if (auto error = audit_runs::checkOneRunAuditStageOptions(project, options)) return error;
    auto report = audit_runs::runOneRunAuditStage(project, options, progress, cancel, log);
    if (!report) return report.error();
    if (log)
        log("one-run audit '" + report->name + "' of task '" + report->task + "': " + std::to_string(report->correct) +
            " of " + std::to_string(report->guesses) + " guesses right among " + std::to_string(report->canaries) +
            " canaries, empirical ε lower bound " + std::to_string(report->epsilonLB));
    return std::nullopt;
}

Status runTrainingAuditWithEngine(project::ProjectFile& project, const AuditRequest& request,
                                  const ProgressCallback& progress, const CancellationToken& cancel,
                                  const StudyLog& log) {
    audit_runs::TrainingAuditStageOptions options;
    options.task = request.task;
    if (!training_audit::parseAuditedMechanism(request.mechanism, options.mechanism))
        return Error{"mechanism: '" + request.mechanism + "' is not an audited mechanism", "mechanism"};
    if (!training_audit::parseTrainingCanaryKind(request.trainingCanary, options.canary))
        return Error{"canary: '" + request.trainingCanary + "' is not a canary of a training audit", "canary"};
    options.runs = request.runs;
    options.epsilon = request.epsilon;
    options.accountant = request.accountant;
    options.seed = static_cast<std::uint64_t>(request.seed);
    // One training at a time: LibTorch already uses the cores inside each, and its thread count
    // cannot change while the workbench runs (dpmix audit spreads trainings over the cores instead).
    options.threads = 1;
    auto device = runtime::chooseDevice(request.device);
    if (!device) return device.error();
    options.device = *device;
    if (auto error = audit_runs::checkTrainingAuditStageOptions(project, options)) return error;
    auto report = audit_runs::runTrainingAuditStage(project, options, progress, cancel, log);
    if (!report) return report.error();
    if (log) {
        log("audit '" + report->name + "' of task '" + report->task + "': empirical ε lower bound " +
            std::to_string(report->result.epsilonLB));
        if (std::isfinite(report->result.claimedEpsilon))
            if (auto audits = audit_runs::storedMechanismAudits(project))
                log("verdict on the claim: " +
                    audit::describe(audit::claimVerdict(request.mechanism, report->result.claimedEpsilon,
                                                        report->result.delta, *audits),
                                    report->result.claimedEpsilon));
    }
    return std::nullopt;
}

}  // namespace

Result<audit_runs::AuditStageOptions> auditStageOptionsFor(const project::ProjectFile& project,
                                                           const AuditRequest& request) {
    audit_runs::AuditStageOptions options;
    options.mixture = mixtureStageFor(project.spec().mixture, request.mixture);
    options.task = request.task;
    options.canary = request.naturalCanary ? audit::CanaryKind::Natural : audit::CanaryKind::MaxClip;
    options.maxClipSign =
        request.raiseTopSource ? audit::MaxClipSign::RaiseTopSource : audit::MaxClipSign::LowerTopSource;
    options.maxClipTarget =
        request.quietestSource ? audit::MaxClipTarget::QuietestSource : audit::MaxClipTarget::TopSource;
    options.runs = request.runs;
    options.noNoise = request.noNoise;
    options.epsilon = request.epsilon;
    options.accountant = request.accountant;
    options.seed = static_cast<std::uint64_t>(request.seed);
    auto device = runtime::chooseDevice(request.device);
    if (!device) return device.error();
    options.proxy.device = *device;
    if (auto error = audit_runs::checkAuditStageOptions(project, options)) return *error;
    return options;
}

Status runAuditWithEngine(project::ProjectFile& project, const AuditRequest& request, const ProgressCallback& progress,
                          const CancellationToken& cancel, const StudyLog& log) {
    if (!request.mechanism.empty() && request.oneRun)
        return runOneRunAuditWithEngine(project, request, progress, cancel, log);
    if (!request.mechanism.empty()) return runTrainingAuditWithEngine(project, request, progress, cancel, log);
    auto options = auditStageOptionsFor(project, request);
    if (!options) return options.error();
    auto report = audit_runs::runAuditStage(project, *options, progress, cancel, log);
    if (!report) return report.error();
    if (log)
        log("audit '" + report->name + "' of task '" + report->task + "': empirical ε lower bound " +
            std::to_string(report->result.epsilonLB));
    return std::nullopt;
}

Status runPsgWithEngine(project::ProjectFile& project, const PsgRequest& request, const ProgressCallback& progress,
                        const CancellationToken& cancel, const StudyLog& log,
                        const std::function<void(const PrivateSetImages&)>& snapshot) {
    experiment_runs::PsgStageOptions options;
    options.imagesPerClass = request.imagesPerClass;
    options.iterations = request.iterations;
    options.epsilon = request.epsilon;
    options.accountant = request.accountant;
    options.reproducible = request.reproducible;
    options.evaluations = request.evaluations;
    options.evaluationEpochs = request.evaluationEpochs;
    options.dpSgdSteps = request.references ? request.dpSgdSteps : 0;
    options.references = request.references;
    options.seed = static_cast<std::uint64_t>(request.seed);
    auto device = runtime::chooseDevice(request.device);
    if (!device) return device.error();
    options.device = *device;
    QStringList classNames;
    if (auto sources = project.sources())
        for (const auto& source : *sources)
            if (source.role == project::SourceRole::Sensitive)
                for (const auto& name : source.facts.labelNames) classNames << QString::fromStdString(name);
    auto toImages = [&](const psg::PrivateSet& set, int iteration) {
        PrivateSetImages images;
        images.pixels = set.pixels;
        images.classes = set.classes;
        images.imagesPerClass = set.imagesPerClass;
        images.channels = set.channels;
        images.height = set.height;
        images.width = set.width;
        images.iteration = iteration;
        images.iterations = static_cast<int>(request.iterations);
        images.classNames = classNames;
        return images;
    };
    auto report = experiment_runs::runPsgStage(project, options, progress, cancel, log,
                                               [&](const psg::PrivateSet& set, int iteration) {
                                                   if (snapshot) snapshot(toImages(set, iteration));
                                               });
    if (!report) return report.error();
    if (log)
        for (const auto& row : report->rows)
            log("PSG accuracy, " + row.label + ": " + std::to_string(row.mean) + " ± " + std::to_string(row.std));
    return std::nullopt;
}

}  // namespace dpmix::workbench
