#include "app/cli/ranks_option.h"

#include "app/cli/command.h"
#include "engine/distributed/local_ranks.h"
#include "engine/study_plan/data_parallel.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <thread>

namespace dpmix::cli {
namespace {

// More ranks than this on one machine only oversubscribe it; a cluster's ranks come from Slurm.
constexpr int kMostLocalRanks = study_plan::kMostRanks;

std::string thisProgram() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("dpmix") : exe.string();
}

}  // namespace

void addRanksOption(CLI::App& run, int& ranks) {
    run.add_option("--ranks", ranks,
                   "DP-SGD fine-tuning data-parallel on N local processes, or with --executor slurm on N Slurm tasks "
                   "per unit (rank 0 adds the noise once; the "
                   "model equals the 1-rank one up to float rounding in --reproducible mode; docs/CLUSTER.md, "
                   "\"Ranks\") (default 1)");
}

std::optional<std::string> ranksOutOfRange(int ranks) {
    if (ranks >= 1 && ranks <= kMostLocalRanks) return std::nullopt;
    return "--ranks = " + std::to_string(ranks) + " is out of range: expected 1 to " + std::to_string(kMostLocalRanks) +
           " local processes";
}

std::optional<std::string> ranksRefusal(int ranks, bool textStudy, const project::ProjectSpec& spec,
                                        const study_plan::StudyRunOptions& options) {
    if (ranks <= 1) return ranksOutOfRange(ranks);
    auto why = study_plan::dataParallelRefusal(ranks, textStudy, spec, options);
    if (!why) return std::nullopt;
    return "--ranks " + std::to_string(ranks) + ": " + *why + (textStudy ? ". Nothing was written" : "");
}

std::unique_ptr<pipeline::ScopedDpSgdOnRanks> installLocalRanks(int ranks) {
    if (ranks <= 1) return nullptr;
    distributed::LocalRankSettings settings;
    settings.program = thisProgram();
    settings.ranks = ranks;
    // The children share this machine's cores (rank 0 keeps --threads).
    settings.threadsPerRank = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / ranks);
    pipeline::DpSgdOnRanks runner;
    runner.ranks = ranks;
    runner.finetune = [settings](train::Model& model, const train::ImageView& images, std::span<const int> labels,
                                 std::span<const std::int64_t> users, const train::DpSgdParams& params,
                                 privacy::Ledger& ledger, const ProgressCallback& progress,
                                 const CancellationToken& cancel) {
        return distributed::finetuneOnLocalRanks(settings, model, images, labels, users, params, ledger, progress,
                                                 cancel);
    };
    return std::make_unique<pipeline::ScopedDpSgdOnRanks>(std::move(runner));
}

void registerRankCommand(CLI::App& app, CommandContext& ctx) {
    struct RankArgs {
        int port = 0, rank = 0, ranks = 0;
        long long timeoutMs = distributed::kRankTimeout.count() * 1000;
        std::string host = "127.0.0.1";
    };
    auto args = std::make_shared<RankArgs>();
    // Started by `dpmix run --ranks N` (local_ranks.h), not by people: no entry in --help.
    auto* rank = app.add_subcommand("rank", "one rank of a data-parallel fine-tuning (started by dpmix run --ranks)");
    rank->group("");
    rank->add_option("--host", args->host, "rank 0's store address");
    rank->add_option("--port", args->port, "rank 0's store port")->required();
    rank->add_option("--rank", args->rank, "this rank")->required();
    rank->add_option("--ranks", args->ranks, "the world size")->required();
    rank->add_option("--timeout-ms", args->timeoutMs, "how long to wait for another rank");
    rank->callback([&ctx, args] {
        distributed::RankAddress address{args->host, args->port, std::chrono::milliseconds(args->timeoutMs)};
        if (auto e = distributed::runRank(address, args->rank, args->ranks)) {
            std::cerr << "dpmix rank " << args->rank << ": " << e->message << '\n';
            ctx.exitCode = 1;
            return;
        }
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
