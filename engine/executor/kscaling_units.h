#pragma once
// `dpmix experiment k-scaling` as independent work units (docs/CLUSTER.md, "k-scaling"): the
// inputs are gathered once at submission (prepareKScaling: the proxy's class probabilities on
// split A, each class's labels, the spec's DP-MixMin settings) and frozen; a unit is one
// one-vs-rest class (every k and seed of it, runKScalingClass); the merge summarises the classes
// and stores the one k-scaling run exactly as the local experiment does (storeKScalingResults).
// Every number travels as the hex of its IEEE-754 bits, so the stored run is the local one, bit
// for bit. A worker needs nothing but the frozen inputs: no project, no proxy, no LibTorch call.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/experiment_runs/mixture_experiment_runs.h"
#include "engine/project/project_file.h"

#include <string>
#include <utility>
#include <vector>

namespace dpmix::executor {

/// Checks the options, gathers the inputs (training the proxy if no stored one matches) and
/// returns them frozen (JSON).
Result<std::string> freezeKScaling(project::ProjectFile& project, const experiment_runs::KScalingStageOptions& options,
                                   const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                   const pipeline::LogSink& log = {});

/// The number of one-vs-rest classes of a frozen k-scaling.
Result<long long> frozenKScalingClasses(const std::string& frozenJson);

/// One unit per class, in order; params {"class": c}.
std::vector<cluster::WorkUnit> kScalingWorkUnits(long long classes);

/// The worker: class `classIndex`'s rows (JSON). `threads` > 0 overrides the frozen thread count.
Result<std::string> runKScalingUnit(const std::string& frozenJson, long long classIndex, int threads);

/// The merge: every class's unit result (by class index), summarised and stored as one run with
/// `provenance` as an info log line.
Result<experiment_runs::KScalingStageReport> storeFrozenKScaling(
    project::ProjectFile& project, const std::string& frozenJson,
    const std::vector<std::pair<long long, std::string>>& unitResults, const std::string& provenance);

}  // namespace dpmix::executor
