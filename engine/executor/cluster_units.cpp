// What a cluster job is made of (docs/CLUSTER.md): the executor named on the command line, an
// audit's work units, and the script every array task runs.
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/cluster_process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace dpmix::executor::cluster {
namespace fs = std::filesystem;
using nlohmann::json;

Result<ExecutorKind> parseExecutor(const std::string& text) {
    if (text == "local") return ExecutorKind::Local;
    if (text == "slurm") return ExecutorKind::Slurm;
    return Error{"executor = '" + text + "' is not an executor: expected local or slurm", "executor"};
}

Result<std::vector<WorkUnit>> auditWorkUnits(long long runsPerWorld, long long units, std::uint64_t seed) {
    if (units < 2 || units % 2 != 0 || units > 2 * runsPerWorld)
        return Error{"units = " + std::to_string(units) + " is out of range: expected an even number from 2 to " +
                         std::to_string(2 * runsPerWorld) + " (each world's runs in units / 2 blocks)",
                     "units"};
    const long long perWorld = units / 2;
    std::vector<WorkUnit> out;
    for (int world = 0; world < 2; ++world)
        for (long long b = 0; b < perWorld; ++b) {
            const long long begin = runsPerWorld * b / perWorld, end = runsPerWorld * (b + 1) / perWorld;
            WorkUnit u;
            u.id = static_cast<long long>(out.size());
            u.seed = seed;
            u.paramsJson = json{{"world", world == 0 ? "out" : "in"}, {"begin", begin}, {"end", end}}.dump();
            out.push_back(u);
        }
    return out;
}

namespace {

// With ranks, srun runs the worker as each of the array task's Slurm tasks (SLURM_PROCID 0 is rank
// 0). --wait: once one task has ended, the rest get 60 s before Slurm ends them, a backstop should
// rank 0 vanish without closing its store.
std::string workerLauncher(const SlurmOptions& o) {
    if (o.ranks <= 1) return {};
    return "srun --ntasks=" + std::to_string(o.ranks) +
           " --cpus-per-task=" + std::to_string(std::max(1, o.cpusPerTask)) + " --wait=60 ";
}

}  // namespace

std::string sbatchScript(const fs::path& jobDir, const std::string& jobId, const SlurmOptions& o) {
    const std::string program = o.program.empty() ? selfExecutable().string() : o.program;
    std::ostringstream s;
    s << "#!/bin/bash\n"
      << "# dpmix cluster job " << jobId << " (docs/CLUSTER.md): one array task per work unit.\n"
      << "#SBATCH --job-name=dpmix-" << jobId << "\n"
      << "#SBATCH --output=" << (jobDir / "logs" / "unit-%a.%A.log").string() << "\n"
      << "#SBATCH --ntasks=" << std::max(1, o.ranks) << "\n"
      << "#SBATCH --cpus-per-task=" << std::max(1, o.cpusPerTask) << "\n";
    if (o.gpusPerTask > 0) s << "#SBATCH --gpus-per-task=" << o.gpusPerTask << "\n";
    if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
    if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n";
    if (!o.account.empty()) s << "#SBATCH --account=" << o.account << "\n";
    s << "set -euo pipefail\n";
    if (!o.setup.empty()) s << o.setup << "\n";
    s << "echo \"[dpmix] unit ${SLURM_ARRAY_TASK_ID} of job " << jobId << " on $(hostname) at $(date -u +%FT%TZ)\"\n"
      << "exec " << workerLauncher(o) << shellQuote(program) << " worker " << shellQuote(jobDir.string())
      << " --unit \"${SLURM_ARRAY_TASK_ID}\" --threads \"${SLURM_CPUS_PER_TASK:-1}\"";
    if (o.ranks > 1) s << " --ranks " << o.ranks;
    s << "\n";
    return s.str();
}

}  // namespace dpmix::executor::cluster
