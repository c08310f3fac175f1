#pragma once
// Runs the regime map (experiments/regime_map.h) on real data: for each pool spec and sensitive
// set size n, the study's spec (experiments/regime_grid.h) is written into the map's folder and
// its project created there; each (ε, seed) of the grid is one study run of every method, stored
// in that project like any `dpmix run` (one run per seed, covering every ε), so `dpmix results` and the workbench read
// it. A run whose results are all stored is skipped: an interrupted map resumes where it stopped. The runs are seeded
// (reproducible): the map is the data owner's simulation, never a release.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/experiments/regime_grid.h"
#include "engine/experiments/regime_map.h"
#include "engine/pipeline/study_runner.h"

#include <filesystem>
#include <string>
#include <vector>

namespace dpmix::experiment_runs {

/// One study of the map: a pool at one sensitive set size.
struct RegimeStudy {
    std::string name;  // the study's name: "<pool>-n<N>", or "<pool>-all"
    std::string pool;  // the pool spec's name
    experiments::PoolKind kind = experiments::PoolKind::OneSource;
    long long n = 0;  // 0 until the project is created: then the examples the sensitive source holds
    std::filesystem::path spec, project;
};

/// The studies of the grid, in pool order then size order, with their specs written (or checked:
/// an existing study spec must be the same) and their projects created or opened.
Result<std::vector<RegimeStudy>> prepareRegimeStudies(const std::vector<std::filesystem::path>& poolSpecs,
                                                      const experiments::RegimeGrid& grid,
                                                      const std::filesystem::path& folder,
                                                      const pipeline::LogSink& log = {});

/// The run options of a study's `seeds` (one seed for a local run, all of them for a Slurm array):
/// every stage at every ε of the grid (one run per seed, so the pretrained models of the uniform, λ*
/// and Random Search mixtures serve every ε), the grid's methods, tasks, steps and ρ, seeded randomness.
pipeline::StudyRunOptions regimeRunOptions(const experiments::RegimeGrid& grid, std::vector<std::uint64_t> seeds,
                                           const pipeline::ProxyOptions& proxy, const std::string& device);

/// Whether the project already holds a finished test AUC of every method and task the options ask for.
Result<bool> regimeRunDone(const project::ProjectFile& project, const pipeline::StudyRunOptions& options);

struct RegimeRunCounts {
    int ran = 0, skipped = 0;
};

/// Runs every (study, seed) not yet done. Progress: stage "regime-map", one unit per run, with
/// each run's own progress in between; cancellation stops between or inside runs.
Result<RegimeRunCounts> runRegimeMap(const std::vector<RegimeStudy>& studies, const experiments::RegimeGrid& grid,
                                     const pipeline::ProxyOptions& proxy, const std::string& device,
                                     const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                     const pipeline::LogSink& log = {});

/// The map from the studies' stored results (every run their projects hold).
Result<experiments::RegimeMap> collectRegimeMap(const std::vector<RegimeStudy>& studies, const std::string& reference);

}  // namespace dpmix::experiment_runs
