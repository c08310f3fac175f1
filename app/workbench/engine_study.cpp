#include "app/workbench/engine_study.h"

#include "engine/data/source_loader.h"
#include "engine/pipeline/study_runner.h"

namespace dpmix::workbench {

Result<project::SourceFacts> summarizeWithDataLayer(const data::SourceSpec& spec) {
    auto summary = data::summarizeSource(spec);
    if (!summary) return summary.error();
    const data::SourceSummary& s = *summary;
    project::SourceFacts facts;
    facts.kind = s.kind;
    facts.examples = s.examples;
    facts.labelNames = s.labelNames;
    facts.domains = s.domains;
    facts.users = s.users;
    facts.contentHash = s.contentHash;
    facts.channels = s.channels;
    facts.height = s.height;
    facts.width = s.width;
    return facts;
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
