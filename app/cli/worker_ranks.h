#pragma once
// `dpmix worker … --ranks N`: one Slurm task of a unit whose DP-SGD fine-tunings run on N ranks
// (`dpmix run … --executor slurm --ranks N`; docs/CLUSTER.md, "Ranks"). srun starts it as every
// task of the array task: task 0 runs the unit as rank 0, the others serve its fine-tunings
// (engine/distributed/slurm_ranks.h) and touch no project and no budget store.
#include <string>

namespace dpmix::cli {

/// Runs this task's part of unit `unit`; returns the exit code (the reason on stderr).
int runWorkerOnSlurmRanks(const std::string& jobDir, long long unit, int threads, int ranks);

}  // namespace dpmix::cli
