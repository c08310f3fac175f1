#include "app/workbench/engine_study.h"

#include "engine/data/source_loader.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/study_runner.h"

namespace dpmix::workbench {

Result<project::SourceFacts> summarizeWithDataLayer(const data::SourceSpec& spec) {
    return pipeline::summarizeWithDataLayer(spec);
}

std::optional<Error> runStudyWithEngine(project::ProjectFile& project, const StudyRequest& request,
                                        const ProgressCallback& progress, const CancellationToken& cancel,
                                        const StudyLog& log) {
    pipeline::StudyRunOptions options;
    options.stages = request.stages;
    options.epsilons = request.epsilons;
    options.rho = request.rho;
    for (long long seed : request.seeds) options.seeds.push_back(static_cast<std::uint64_t>(seed));
    if (auto error = pipeline::checkStudyRunOptions(options)) return error;
    auto report = pipeline::runStudy(project, options, progress, cancel, log);
    if (!report) return report.error();
    return std::nullopt;
}

}  // namespace dpmix::workbench
