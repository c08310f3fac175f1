#include "app/cli/executor_options.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace dpmix::cli {

namespace {
const char* const kSlurmFlags[] = {"--max-parallel",  "--partition", "--time",  "--cpus-per-task",
                                   "--gpus-per-task", "--account",   "--setup", "--dry-run"};
}

void addExecutorOptions(CLI::App& cmd, ExecutorArgs& args, const std::string& localWhat) {
    cmd.add_option("--executor", args.executor,
                   "local (default: " + localWhat + ") or slurm (one Slurm job array; docs/CLUSTER.md)")
        ->check(CLI::IsMember({"local", "slurm"}));
    cmd.add_option("--max-parallel", args.slurm.maxParallel,
                   "slurm: array tasks running at once (%P; default no limit)");
    cmd.add_option("--partition", args.slurm.partition, "slurm: the partition (sbatch --partition)");
    cmd.add_option("--time", args.slurm.time, "slurm: time limit per array task (sbatch --time, e.g. 00:30:00)");
    cmd.add_option("--cpus-per-task", args.slurm.cpusPerTask, "slurm: CPUs per array task (default 1)");
    cmd.add_option("--gpus-per-task", args.slurm.gpusPerTask, "slurm: GPUs per array task (default 0)");
    cmd.add_option("--account", args.slurm.account, "slurm: the account to charge (sbatch --account)");
    cmd.add_option("--setup", args.slurm.setup,
                   "slurm: shell lines each array task runs before dpmix (e.g. 'module load dpmix')");
    cmd.add_flag("--dry-run", args.dryRun, "slurm: print the sbatch script and command; submit nothing");
}

std::optional<std::string> misplacedSlurmFlag(const CLI::App& cmd, const ExecutorArgs& args,
                                              const std::vector<std::string>& extraFlags) {
    if (args.executor == "slurm") return std::nullopt;
    std::vector<std::string> flags(extraFlags);
    flags.insert(flags.end(), std::begin(kSlurmFlags), std::end(kSlurmFlags));
    for (const auto& flag : flags)
        if (cmd.count(flag) > 0) return flag + " belongs to --executor slurm";
    return std::nullopt;
}

void printDryRun(const executor::cluster::SubmitReport& report) {
    std::cout << report.script << "# " << report.command << "\n";
}

void printSubmitted(const project::ProjectFile& project, const executor::cluster::SubmitReport& report, bool json,
                    const std::string& stores) {
    if (json) {
        nlohmann::ordered_json out{
            {"project", project.path().string()}, {"job", report.jobId},   {"dir", report.dir.string()},
            {"slurm_job", report.slurmJobId},     {"units", report.units}, {"command", report.command}};
        std::cout << out.dump(2) << '\n';
        return;
    }
    std::cout << "submitted job " << report.jobId << " as Slurm job " << report.slurmJobId << " (" << report.units
              << " array tasks)\n  " << report.dir.string() << "\n  follow it with: dpmix jobs status "
              << project.path().string() << "\n  store " << stores << " with: dpmix jobs merge "
              << project.path().string() << "\n";
}

}  // namespace dpmix::cli
