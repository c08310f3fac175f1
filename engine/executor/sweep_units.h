#pragma once
// `dpmix experiment epsilon-sweep|rho-sweep` as independent work units (docs/CLUSTER.md, "Sweeps"):
// one unit per sweep point (an ε, or a ρ). A unit runs the ordinary sweep restricted to its one
// value, on its own scratch copy of the project (made at submission, the proxy already in it),
// and the merge copies the runs it stored into the project as the run grid's are (run_units.h).
//
// A point's numbers do not depend on the other points: every DP run of the sweep is seeded from
// (seed, the point's value), never from its position in the list, and each task's references
// (λ*, the uniform mixture's cosine) are computed the same way in every unit. So the merged runs
// are the local sweep's, bit for bit; they are stored point by point (ε-major) where a local
// sweep stores them task by task.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/experiment_runs/mixture_experiment_runs.h"
#include "engine/project/project_file.h"

#include <filesystem>
#include <string>
#include <vector>

namespace dpmix::executor {

enum class SweepKind { Epsilon, Rho };

/// Checks the options, obtains the study's proxy in `project` exactly as a local sweep would
/// first, and returns the frozen sweep (JSON; numbers as the hex of their IEEE-754 bits).
Result<std::string> freezeSweep(project::ProjectFile& project, SweepKind kind,
                                const experiment_runs::SweepStageOptions& options,
                                const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                const pipeline::LogSink& log = {});

/// One unit per value, in the given order; params {"value": hex bits}.
std::vector<cluster::WorkUnit> sweepWorkUnits(const std::vector<double>& values);

/// The worker: the sweep at `value` only, on a fresh scratch copy of the snapshot; returns the
/// unit's result (runOnScratchCopy's). `threads` > 0 overrides the frozen thread count.
Result<std::string> runSweepUnit(const std::filesystem::path& jobDir, const std::string& frozenJson, long long unit,
                                 const std::string& valueHex, int threads);

}  // namespace dpmix::executor
