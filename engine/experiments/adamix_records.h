#pragma once
// How an AdaMix-R experiment is stored in a project, and the reader the workbench uses
// (docs/ADAMIX.md, "Stored format"). Torch-free and Qt-free.
//
// One run per experiment, method "adamix-experiment", whose ledger holds one NonPrivate entry:
// the grid compares DP heads with a non-private paragon fitted on the sensitive data (and
// every DP cell's noise is seeded), so it is a diagnostic, never a release. Each DP cell's
// planned (ε, δ, σ, T, q) is in its row. Stored:
//  - the run's config: the sources, the grid's lists and hyperparameters, the extractor;
//  - blob "adamix-cells" (JSON): every cell row;
//  - blob "adamix-per-example/<cell>" (JSON), one per AdaMix-R cell: ε_i, isolation score, loss,
//    label and index in the private source of each private example, with the quantiles and the
//    rank correlations;
//  - metrics "test-error" and "error-increase" (means over seeds), one per table row, the class
//    name saying the row ("M4 adamix-r | eps 1 | shots 5 | private 50"), for generic views;
//  - the extractor's weights (model "extractor"; trained on public data only).
#include "engine/core/result.h"
#include "engine/experiments/adamix_experiment.h"
#include "engine/project/project_file.h"

#include <string>
#include <vector>

namespace dpmix::experiments {

inline constexpr const char* kAdamixExperimentMethod = "adamix-experiment";
inline constexpr const char* kAdamixCellsBlob = "adamix-cells";
inline constexpr const char* kAdamixPerExamplePrefix = "adamix-per-example/";
inline constexpr const char* kAdamixExtractorModel = "extractor";

/// What the experiment ran on, besides the grid's options.
struct AdamixExperimentSetup {
    std::string privateSource;    // the source whose examples are private (and its index space)
    std::string extractorSource;  // the public source the extractor was trained on
    std::string shotsSource;      // "" = shots drawn from the private pool (and removed from it)
    std::string testSet;          // in words, e.g. "the project's sensitive test split (5,992 examples)"
    bool mirror = false;
    std::vector<std::string> classes;  // the private task's class names
    long long poolExamples = 0;        // the private pool (the train split of the private source)
    long long testExamples = 0;
    // The extractor: architecture, training and what it reached on its own source.
    std::string extractorArchitecture;
    int extractorEpochs = 0;
    long long extractorExamples = 0;
    std::uint64_t extractorSeed = 0;
    std::string extractorSourceHash;  // content hash of the extractor's source (reuse is keyed by it)
    int featureDim = 0;
    double extractorTrainAccuracy = 0.0;  // on its own (public) training images
    bool extractorReused = false;         // weights loaded from an earlier run of this project
    long long extractorRunId = 0;         // the run holding the weights that were used
    double wallSeconds = 0.0;
};

/// Stores the experiment as one run (see above) and returns its id. `extractorWeights` are
/// stored as model "extractor" when not empty; `provenance`, when not empty, as an info log line
/// (a cluster merge finds its run again by it).
Result<long long> storeAdamixExperiment(project::ProjectFile& project, const AdamixExperimentSetup& setup,
                                        const AdamixGridOptions& options, const AdamixGridResult& result,
                                        const std::vector<float>& extractorWeights = {},
                                        const std::string& provenance = {});

struct StoredAdamixExperiment {
    long long runId = 0;
    AdamixExperimentSetup setup;
    AdamixGridOptions options;  // the lists, methods and hyperparameters it ran with
    AdamixGridResult result;    // cells, per-example records, and the summaries recomputed from them
    std::string configJson;
};

/// Reads a stored "adamix-experiment" run back. `perExample` false skips the per-example
/// records (their blobs are the bulk of the run); a cell's `perExample` then still says where
/// its record would be in a full read (-1: the cell has none). Errors: not such a run, a blob missing or
/// not matching its content hash, a malformed record.
Result<StoredAdamixExperiment> readAdamixExperiment(const project::ProjectFile& project, long long runId,
                                                    bool perExample = true);

/// The class name of a table row in the stored metrics: "M4 adamix-r | eps 1 | shots 5 | private 50".
std::string adamixRowName(AdamixMethod method, const std::optional<double>& epsilon, long long shots,
                          long long privatePerClass);

}  // namespace dpmix::experiments
