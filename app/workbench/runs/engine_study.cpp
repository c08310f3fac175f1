#include "app/workbench/runs/engine_study.h"

#include "engine/data/source_loader.h"
#include "engine/pipeline/audit_stage.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/study_runner.h"

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

}  // namespace

Result<project::SourceFacts> summarizeWithDataLayer(const data::SourceSpec& spec) {
    return pipeline::summarizeWithDataLayer(spec);
}

Status runStudyWithEngine(project::ProjectFile& project, const StudyRequest& request,
                                        const ProgressCallback& progress, const CancellationToken& cancel,
                                        const StudyLog& log) {
    // The panel's Advanced values run as given; the stored run config and ledger record them.
    pipeline::StudyRunOptions options;
    options.mixture = mixtureStageFor(project.spec().mixture, request.mixture);
    options.stages = request.stages;
    if (!request.methods.empty()) options.methods = request.methods;
    options.tasks = request.tasks;
    options.epsilons = request.epsilons;
    options.rho = request.rho;
    for (long long seed : request.seeds) options.seeds.push_back(static_cast<std::uint64_t>(seed));
    options.pretrainSteps = request.pretrainSteps;
    options.finetuneSteps = request.finetuneSteps;
    options.reproducible = request.reproducible;
    options.accountant = request.accountant;
    if (auto error = pipeline::checkStudyRunOptions(options)) return error;
    auto report = pipeline::runStudy(project, options, progress, cancel, log);
    if (!report) return report.error();
    return std::nullopt;
}

Status runAuditWithEngine(project::ProjectFile& project, const AuditRequest& request,
                                        const ProgressCallback& progress, const CancellationToken& cancel,
                                        const StudyLog& log) {
    pipeline::AuditStageOptions options;
    options.mixture = mixtureStageFor(project.spec().mixture, request.mixture);
    options.task = request.task;
    options.canary = request.naturalCanary ? audit::CanaryKind::Natural : audit::CanaryKind::MaxClip;
    options.maxClipSign = request.raiseTopSource ? audit::MaxClipSign::RaiseTopSource : audit::MaxClipSign::LowerTopSource;
    options.maxClipTarget = request.quietestSource ? audit::MaxClipTarget::QuietestSource : audit::MaxClipTarget::TopSource;
    options.runs = request.runs;
    options.noNoise = request.noNoise;
    options.epsilon = request.epsilon;
    options.accountant = request.accountant;
    options.seed = static_cast<std::uint64_t>(request.seed);
    if (auto error = pipeline::checkAuditStageOptions(project, options)) return error;
    auto report = pipeline::runAuditStage(project, options, progress, cancel, log);
    if (!report) return report.error();
    if (log)
        log("audit '" + report->name + "' of task '" + report->task + "': empirical ε lower bound " +
            std::to_string(report->result.epsilonLB));
    return std::nullopt;
}

}  // namespace dpmix::workbench
