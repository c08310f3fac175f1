#pragma once
// `dpmix experiment adamix` as independent work units (docs/CLUSTER.md, "AdaMix-R"): the
// experiment is prepared once at submission (prepareAdamixExperiment: the sources checked, the
// extractor trained or reused, the draws planned, the features extracted) and frozen; a unit is
// one seed's draws at one private-per-class value (runAdamixGridPart); the merge assembles the
// parts and stores the one experiment run as the local experiment does.
//
// The frozen experiment is two files: spec.json (the options, the setup and the SHA-256 of the
// inputs, numbers as the hex of their IEEE-754 bits) and adamix-inputs.bin (the features, labels,
// draw plan and extractor weights, raw little-endian: too large for JSON). A worker needs nothing
// else — no project, no data set, no LibTorch call — and its cells are the local run's, bit for bit.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/experiment_runs/adamix_experiment_stage.h"
#include "engine/project/project_file.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace dpmix::executor {

/// The binary inputs' file name in a job directory.
inline constexpr const char* kAdamixInputsFile = "adamix-inputs.bin";

struct FrozenAdamixExperiment {
    std::string json;    // spec.json of the job
    std::string inputs;  // the bytes of adamix-inputs.bin (its SHA-256 is in `json`)
};

/// Checks the options, prepares the experiment in `project` (writing nothing) and freezes it.
Result<FrozenAdamixExperiment> freezeAdamixExperiment(project::ProjectFile& project,
                                                      const experiment_runs::AdamixExperimentOptions& options,
                                                      const ProgressCallback& progress = {},
                                                      const CancellationToken& cancel = {},
                                                      const pipeline::LogSink& log = {});

/// One unit per grid part, seed-major (experiments::adamixGridParts); params {"seed", "private_index",
/// "private_per_class"}. Needs the grid's lists only, so a dry run can list them.
std::vector<cluster::WorkUnit> adamixWorkUnits(const experiments::AdamixGridOptions& grid);

/// The worker: the part's cells and per-example records (JSON). Reads and checks the job
/// directory's inputs file. `threads` > 0 overrides the frozen thread count.
Result<std::string> runAdamixUnit(const std::filesystem::path& jobDir, const std::string& frozenJson, long long seed,
                                  long long privateIndex, int threads);

/// The merge: every unit's result (by unit id), assembled and stored as one run with
/// `provenance` as an info log line. The stored setup's wall time is the preparation's plus the
/// sum of the units' (the time the experiment would take on one machine).
Result<experiment_runs::AdamixExperimentReport> storeFrozenAdamix(
    project::ProjectFile& project, const std::filesystem::path& jobDir, const std::string& frozenJson,
    const std::vector<std::pair<long long, std::string>>& unitResults, const std::string& provenance);

}  // namespace dpmix::executor
