#include "app/workbench/engine_study.h"

#include "engine/data/source_loader.h"
#include "engine/pipeline/audit_stage.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/study_runner.h"

namespace dpmix::workbench {

Result<project::SourceFacts> summarizeWithDataLayer(const data::SourceSpec& spec) {
    return pipeline::summarizeWithDataLayer(spec);
}

std::optional<Error> runStudyWithEngine(project::ProjectFile& project, const StudyRequest& request,
                                        const ProgressCallback& progress, const CancellationToken& cancel,
                                        const StudyLog& log) {
    // Refuse rather than run (and record a ledger for) other hyper-parameters than asked for.
    if (request.mixture)
        if (auto error = mixtureOverrideError(project.spec().mixture, *request.mixture)) return error;
    pipeline::StudyRunOptions options;
    options.stages = request.stages;
    if (!request.methods.empty()) options.methods = request.methods;
    options.tasks = request.tasks;
    options.epsilons = request.epsilons;
    options.rho = request.rho;
    for (long long seed : request.seeds) options.seeds.push_back(static_cast<std::uint64_t>(seed));
    options.pretrainSteps = request.pretrainSteps;
    options.finetuneSteps = request.finetuneSteps;
    if (auto error = pipeline::checkStudyRunOptions(options)) return error;
    auto report = pipeline::runStudy(project, options, progress, cancel, log);
    if (!report) return report.error();
    return std::nullopt;
}

std::optional<Error> runAuditWithEngine(project::ProjectFile& project, const AuditRequest& request,
                                        const ProgressCallback& progress, const CancellationToken& cancel,
                                        const StudyLog& log) {
    if (request.mixture)
        if (auto error = mixtureOverrideError(project.spec().mixture, *request.mixture)) return error;
    pipeline::AuditStageOptions options;
    options.task = request.task;
    options.canary = request.naturalCanary ? audit::CanaryKind::Natural : audit::CanaryKind::MaxClip;
    options.maxClipSign = request.raiseTopSource ? audit::MaxClipSign::RaiseTopSource : audit::MaxClipSign::LowerTopSource;
    options.runs = request.runs;
    options.noNoise = request.noNoise;
    options.epsilon = request.epsilon;
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
