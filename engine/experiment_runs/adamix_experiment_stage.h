#pragma once
// The AdaMix-R experiment on a project's real data (docs/ADAMIX.md, "The experiment"): a frozen
// feature extractor — the project's small GroupNorm CNN trained non-privately on a registered
// public source whose label space differs from the private task's — then the grid of
// engine/experiments/adamix_experiment.h on its penultimate features, stored as one run
// (engine/experiments/adamix_records.h; readAdamixExperiment reads it back).
//
// Main run: the private task is the sensitive source, its pool the study's train split and its
// test set the study's test split (the split every run of the project evaluates on). Mirror run:
// the roles swap — the private task is the public source the main run's extractor came from
// (it has no test split of its own: held-out examples by the same stable 80/10/10 split), and
// the extractor is trained on a public source with the sensitive source's label space.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/experiments/adamix_experiment.h"
#include "engine/experiments/adamix_records.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::experiment_runs {

struct AdamixExperimentOptions {
    experiments::AdamixGridOptions grid;  // its drawSeed and accountant are replaced (below)
    bool mirror = false;
    std::string extractorSource;  // "" = the first public image source with a disjoint label space
    std::string shotsSource;      // "" = shots from the private pool (removed from it)
    int extractorEpochs = 3;
    long long extractorExamples = 0;  // 0 = all images of the extractor's source
    std::string device = "cpu";
    std::optional<std::uint64_t> drawSeed;  // unset: the study seed
};

struct AdamixExperimentReport {
    long long runId = 0;
    experiments::AdamixExperimentSetup setup;
    experiments::AdamixGridOptions grid;
    experiments::AdamixGridResult result;
};

/// Everything the grid needs, gathered once: what the local experiment runs, and what a cluster
/// submission freezes (adamix_units.h).
struct PreparedAdamixExperiment {
    experiments::AdamixExperimentSetup setup;  // wallSeconds: the preparation's
    experiments::AdamixGridOptions grid;       // drawSeed and accountant in place
    experiments::AdamixDrawPlan plan;
    experiments::AdamixGridInput input;
    std::vector<float> extractorWeights;  // trained now (stored with the run); empty when reused
};

/// Flag-level checks (no data read); errors name the option (shots, private-per-class,
/// epsilons, seeds, methods, extractor-epochs, extractor-examples).
Status checkAdamixExperimentOptions(const AdamixExperimentOptions& options);

/// The first half of runAdamixExperiment: sources loaded and checked, the extractor obtained
/// (trained now or reused), the draws planned and the features extracted. Writes nothing.
Result<PreparedAdamixExperiment> prepareAdamixExperiment(project::ProjectFile& project,
                                                         const AdamixExperimentOptions& options,
                                                         const ProgressCallback& progress = {},
                                                         const CancellationToken& cancel = {},
                                                         const pipeline::LogSink& log = {});

/// The last step: the grid's result stored as one run (with the extractor's weights when they
/// were trained now, and `provenance`, when not empty, as an info log line).
Result<AdamixExperimentReport> storeAdamixExperimentRun(project::ProjectFile& project,
                                                        const PreparedAdamixExperiment& prepared,
                                                        experiments::AdamixGridResult result,
                                                        const std::string& provenance);

/// Loads the sources, checks every choice against the data (source roles and label spaces, shots
/// and private counts per class) BEFORE anything is written, obtains the extractor (the weights of
/// an earlier experiment of this project with the same extractor settings are reused), extracts
/// the features the draws need, runs the grid and stores it. The accountant is the spec's.
Result<AdamixExperimentReport> runAdamixExperiment(project::ProjectFile& project,
                                                   const AdamixExperimentOptions& options,
                                                   const ProgressCallback& progress = {},
                                                   const CancellationToken& cancel = {},
                                                   const pipeline::LogSink& log = {});

}  // namespace dpmix::experiment_runs
