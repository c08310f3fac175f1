#include "engine/experiment_runs/regime_map_runs.h"

#include "engine/core/file_door.h"
#include "engine/methods/method_plan.h"
#include "engine/pipeline/run_storage.h"
#include "engine/project/project_opener.h"
#include "engine/project/project_records.h"
#include "engine/project/result_summary.h"
#include "engine/project/spec_json.h"

#include <set>
#include <tuple>

namespace dpmix::experiment_runs {
namespace {

constexpr std::uint64_t kMaxSpecBytes = 16u << 20;  // a spec is a few kB; anything larger is not one

// Writes the study's spec, or checks that the one already there is the same (a map resumed with
// other pool settings would mix two studies under one name).
Status writeStudySpec(const project::ProjectSpec& spec, const std::filesystem::path& file) {
    const std::string text = project::projectSpecToJson(spec) + "\n";
    if (files::exists(file.string())) {
        auto there = files::readRegularFile(file.string(), "the study's spec", kMaxSpecBytes);
        if (!there) return there.error();
        if (*there == text) return std::nullopt;
        return Error{file.string() +
                     ": a different study spec of that name is already there (another pool or grid "
                     "ran in this folder); choose another --out folder or remove it"};
    }
    return files::writeNewFile(file.string(), text, 0644);
}

Result<long long> sensitiveUnits(const project::ProjectFile& project) {
    auto sources = project.sources();
    if (!sources) return sources.error();
    const auto* sensitive = project::sensitiveSourceOf(*sources);
    if (!sensitive) return Error{project.path().string() + ": no sensitive source"};
    return sensitive->userLevel && sensitive->facts.users > 0 ? sensitive->facts.users : sensitive->facts.examples;
}

std::vector<std::string> taskNamesOf(const project::ProjectSpec& spec, const std::vector<std::string>& chosen) {
    if (!chosen.empty()) return chosen;
    std::vector<std::string> names;
    for (const auto& task : spec.sensitiveTasks) names.push_back(task.name);
    return names;
}

}  // namespace

Result<std::vector<RegimeStudy>> prepareRegimeStudies(const std::vector<std::filesystem::path>& poolSpecs,
                                                      const experiments::RegimeGrid& grid,
                                                      const std::filesystem::path& folder,
                                                      const pipeline::LogSink& log) {
    if (auto bad = experiments::checkRegimeGrid(grid)) return *bad;
    if (auto bad = files::createDirectories(folder.string()))
        return Error{folder.string() + ": cannot create the map's folder (" + bad->message + ")"};
    std::vector<RegimeStudy> studies;
    std::set<std::string> pools;
    for (const auto& poolSpec : poolSpecs) {
        auto pool = project::loadProjectSpecFile(poolSpec);
        if (!pool) return pool.error();
        if (!pools.insert(pool->name).second)
            return Error{poolSpec.string() + ": a pool named '" + pool->name + "' is already in the map"};
        for (const long long n : grid.sizes) {
            auto spec = experiments::regimeStudySpec(*pool, n, grid.model, grid.resnetWidth);
            if (!spec) return spec.error();
            RegimeStudy study{spec->name,
                              pool->name,
                              experiments::poolKindOf(pool->publicSources.size()),
                              n,
                              folder / (spec->name + ".json"),
                              {}};
            if (auto bad = writeStudySpec(*spec, study.spec)) return *bad;
            auto project = project::openOrCreateFromSpecOrProject(study.spec, pipeline::summarizeWithDataLayer);
            if (!project) return project.error();
            study.project = project->path();
            auto units = sensitiveUnits(*project);
            if (!units) return units.error();
            study.n = *units;
            if (log)
                log("regime map: " + spec->name + " (" + std::to_string(study.n) + " sensitive) in " +
                    study.project.string());
            studies.push_back(std::move(study));
        }
    }
    return studies;
}

pipeline::StudyRunOptions regimeRunOptions(const experiments::RegimeGrid& grid, std::vector<std::uint64_t> seeds,
                                           const pipeline::ProxyOptions& proxy, const std::string& device) {
    pipeline::StudyRunOptions options;
    options.stages = {"proxies", "mixture", "downstream"};
    if (!grid.methods.empty()) options.methods = grid.methods;
    options.tasks = grid.tasks;
    options.epsilons = grid.epsilons;
    options.seeds = std::move(seeds);
    options.rho = grid.rho;
    options.pretrainSteps = grid.pretrainSteps;
    options.finetuneSteps = grid.finetuneSteps;
    options.reproducible = true;
    options.proxy = proxy;
    options.device = device;
    return options;
}

Result<bool> regimeRunDone(const project::ProjectFile& project, const pipeline::StudyRunOptions& options) {
    auto stored = project::storedResults(project, "test-auc");
    if (!stored) return stored.error();
    std::set<std::tuple<std::string, std::string, long long, double>> have;
    for (const auto& o : *stored) have.insert({o.method, o.task, o.seed, o.epsilon});
    for (const auto& spelling : options.methods) {
        auto method = methods::parseMethod(spelling);
        if (!method) return method.error();
        for (const auto& task : taskNamesOf(project.spec(), options.tasks))
            for (const auto seed : options.seeds)
                for (const double epsilon : options.epsilons)
                    if (!have.count({methods::nameOf(*method), task, static_cast<long long>(seed), epsilon}))
                        return false;
    }
    return true;
}

Result<RegimeRunCounts> runRegimeMap(const std::vector<RegimeStudy>& studies, const experiments::RegimeGrid& grid,
                                     const pipeline::ProxyOptions& proxy, const std::string& device,
                                     const ProgressCallback& progress, const CancellationToken& cancel,
                                     const pipeline::LogSink& log) {
    RegimeRunCounts counts;
    const long long total = static_cast<long long>(studies.size() * grid.seeds.size());
    long long done = 0;
    for (const auto& study : studies) {
        auto opened = project::ProjectFile::open(study.project);
        if (!opened) return opened.error();
        project::ProjectFile project = std::move(opened).value();
        for (const auto seed : grid.seeds) {
            throwIfCancelled(cancel);
            const auto options = regimeRunOptions(grid, {seed}, proxy, device);
            const std::string what = study.name + ", seed " + std::to_string(seed);
            report(progress, {"regime-map", done, total, what});
            auto finished = regimeRunDone(project, options);
            if (!finished) return finished.error();
            if (*finished) {
                ++counts.skipped;
            } else {
                if (log) log("regime map: running " + what);
                auto ran = pipeline::runStudy(project, options, progress, cancel, log);
                if (!ran) return Error{what + ": " + ran.error().message};
                ++counts.ran;
            }
            report(progress, {"regime-map", ++done, total, what});
        }
    }
    return counts;
}

Result<experiments::RegimeMap> collectRegimeMap(const std::vector<RegimeStudy>& studies, const std::string& reference) {
    experiments::RegimeMap map;
    map.reference = reference;
    for (const auto& study : studies) {
        auto project = project::ProjectFile::open(study.project, project::OpenMode::ReadOnly);
        if (!project) return project.error();
        auto stored = project::storedResults(*project, map.metric);
        if (!stored) return stored.error();
        for (auto& cell : experiments::regimeCellsOf(*stored, study.pool, study.kind, study.n))
            map.cells.push_back(std::move(cell));
    }
    return map;
}

}  // namespace dpmix::experiment_runs
