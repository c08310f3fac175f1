#include "app/cli/worker_ranks.h"

#include "app/cli/cli_support.h"
#include "engine/distributed/slurm_ranks.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/pipeline/dp_sgd_on_ranks.h"

#include <cstdlib>
#include <iostream>
#include <optional>

namespace dpmix::cli {
namespace {

std::optional<long long> slurmNumber(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    if (*end != '\0' || n < 0) return std::nullopt;
    return n;
}

int failed(const std::string& message) {
    std::cerr << "dpmix worker: " << message << '\n';
    return 1;
}

// Rank 0: the unit as without ranks, its DP-SGD fine-tunings on the job step's tasks.
int runAsRankZero(const distributed::SlurmRankSettings& settings, const std::string& jobDir, long long unit,
                  int threads) {
    auto zero = distributed::SlurmRankZero::host(settings);
    if (!zero) return failed(zero.error().message);
    pipeline::DpSgdOnRanks runner;
    runner.ranks = settings.ranks;
    runner.finetune = [z = *zero](train::Model& model, const train::ImageView& images, std::span<const int> labels,
                                  std::span<const std::int64_t> users, const train::DpSgdParams& params,
                                  privacy::Ledger& ledger, const ProgressCallback& progress,
                                  const CancellationToken& cancel) {
        return z->finetune(model, images, labels, users, params, ledger, progress, cancel);
    };
    pipeline::ScopedDpSgdOnRanks onRanks(std::move(runner));
    const Status e = executor::cluster::runWorkerUnit(jobDir, unit, threads);
    (*zero)->end(!e);
    if (e) return failed(cliMessage(*e));
    std::cout << "unit " << unit << " done (" << settings.ranks << " ranks)\n";
    return 0;
}

}  // namespace

int runWorkerOnSlurmRanks(const std::string& jobDir, long long unit, int threads, int ranks) {
    const auto rank = slurmNumber("SLURM_PROCID");
    const auto tasks = slurmNumber("SLURM_NTASKS");
    const auto job = slurmNumber("SLURM_JOB_ID");
    if (!rank || !tasks || !job || *tasks != ranks)
        return failed("--ranks " + std::to_string(ranks) + ": expected to run under srun as one of " +
                      std::to_string(ranks) + " tasks (SLURM_PROCID, SLURM_NTASKS = " + std::to_string(ranks) +
                      ", SLURM_JOB_ID); the unit's array task starts it so (docs/CLUSTER.md, \"Ranks\")");
    distributed::SlurmRankSettings settings;
    settings.ranks = ranks;
    // One folder per attempt: a resubmission or a requeue never reads an earlier attempt's address.
    settings.rendezvousDir = jobDir + "/ranks/unit-" + std::to_string(unit) + "." + std::to_string(*job) + "." +
                             std::to_string(slurmNumber("SLURM_RESTART_COUNT").value_or(0));
    if (*rank == 0) return runAsRankZero(settings, jobDir, unit, threads);
    if (auto e = distributed::runSlurmRank(settings, static_cast<int>(*rank)))
        return failed("rank " + std::to_string(*rank) + " of unit " + std::to_string(unit) + ": " + e->message);
    std::cout << "rank " << *rank << " of unit " << unit << " done\n";
    return 0;
}

}  // namespace dpmix::cli
