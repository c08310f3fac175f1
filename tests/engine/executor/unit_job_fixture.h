#pragma once
// What the cluster-unit tests share: an `sbatch` first on PATH that accepts any job array (the
// tests then run each unit in process, as `dpmix worker` would), running units here, the merge
// that must wait for a missing unit, and doubles as their IEEE-754 bits, so that "the same as
// the local run" means bit for bit.
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/run_units.h"
#include "engine/project/project_file.h"
#include "engine/study_plan/run_options.h"
#include "tests/engine/pipeline/tiny_image_study.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>

namespace dpmix::testing {

inline void installStandInSbatch(const std::string& dir, const std::string& slurmJobId) {
    namespace fs = std::filesystem;
    fs::create_directories(dir + "/bin");
    std::ofstream(dir + "/bin/sbatch") << "#!/bin/sh\necho " << slurmJobId << "\n";
    fs::permissions(dir + "/bin/sbatch", fs::perms::owner_all);
    const std::string path = dir + "/bin:" + std::string(std::getenv("PATH") ? std::getenv("PATH") : "");
    ::setenv("PATH", path.c_str(), 1);
}

/// One generated image source of a test's folder (tiny_image_study.h): <stem>-images.idx and -labels.idx.
struct GeneratedSource {
    const char* stem;
    int images;
    std::uint64_t seed;
};

/// The folder a cluster-unit test's projects live in: its generated image sources, and the
/// stand-in sbatch answering `slurmJobId` (the units then run in this process).
inline void prepareJobFolder(const std::string& dir, std::initializer_list<GeneratedSource> sources,
                             const std::string& slurmJobId) {
    for (const auto& s : sources) writeStudyImages(dir, s.stem, s.images, s.seed);
    installStandInSbatch(dir, slurmJobId);
}

/// The bits of `v` as a decimal number: equal texts mean equal doubles, NaNs and signed zeros included.
inline std::string bitsText(double v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return std::to_string(b);
}

/// Runs the job's units `ids` here, in that order, on one thread; the first failure, or none.
inline std::optional<std::string> runUnitsHere(const std::filesystem::path& jobDir,
                                               std::initializer_list<long long> ids) {
    for (long long id : ids)
        if (auto e = executor::cluster::runWorkerUnit(jobDir, id, 1))
            return "unit " + std::to_string(id) + ": " + e->message;
    return std::nullopt;
}

/// Merges `p`'s one job while one unit is still missing: the merge must succeed, import nothing,
/// wait for that one unit and store no run (the last run id stays `lastRunBefore`). What was
/// wrong, or none.
inline std::optional<std::string> mergeWaitsForOneUnit(project::ProjectFile& p, long long lastRunBefore) {
    auto early = executor::cluster::mergeJobs(p);
    if (!early.ok()) return "merge: " + early.error().message;
    if (early->size() != 1) return "the merge saw " + std::to_string(early->size()) + " jobs, expected 1";
    if (early->front().imported) return std::string("the merge imported a job with a unit missing");
    if (early->front().waiting.size() != 1)
        return "the merge waits for " + std::to_string(early->front().waiting.size()) + " units, expected 1";
    const auto last = executor::lastRunId(p);
    if (!last.ok() || *last != lastRunBefore) return std::string("the merge stored a run with a unit missing");
    return std::nullopt;
}

/// A run grid of two seeds: DP-MixMin and Uniform through proxies, mixture and downstream on task
/// "ab" of the tiny image study, with a quick proxy (the grid tst_run_units and tst_secret_units run).
inline study_plan::StudyRunOptions gridOptions() {
    study_plan::StudyRunOptions o;
    o.stages = {"proxies", "mixture", "downstream"};
    o.methods = {"dp-mixmin", "uniform"};
    o.tasks = {"ab"};
    o.seeds = {0, 1};
    o.proxy = quickProxy();
    o.randomSearchCandidates = 5;
    return o;
}

}  // namespace dpmix::testing
