#pragma once
// The executor flags a command shares (docs/CLUSTER.md): --executor local|slurm and the Slurm
// job's settings, their checks, and what a submission prints. `dpmix audit` and `dpmix run`
// register them alike.
#include "engine/executor/cluster_jobs.h"
#include "engine/project/project_file.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dpmix::cli {

struct ExecutorArgs {
    std::string executor = "local";
    executor::cluster::SlurmOptions slurm;
    bool dryRun = false;
};

/// Adds --executor and the Slurm flags (--max-parallel, --partition, --time, --cpus-per-task,
/// --gpus-per-task, --account, --setup, --dry-run); `localWhat` says what local runs.
void addExecutorOptions(CLI::App& cmd, ExecutorArgs& args, const std::string& localWhat);

/// A Slurm flag given without --executor slurm (`extraFlags`: the command's own, e.g. --units):
/// the message naming it; nothing when the flags fit.
std::optional<std::string> misplacedSlurmFlag(const CLI::App& cmd, const ExecutorArgs& args,
                                              const std::vector<std::string>& extraFlags = {});

/// A dry run's script and sbatch command (what `--dry-run` prints).
void printDryRun(const executor::cluster::SubmitReport& report);

/// What a submission prints: the job, its Slurm id and how to follow and merge it (`stores`:
/// what the merge stores, e.g. "the audit"), or one JSON object.
void printSubmitted(const project::ProjectFile& project, const executor::cluster::SubmitReport& report, bool json,
                    const std::string& stores);

}  // namespace dpmix::cli
