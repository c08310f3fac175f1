#pragma once
// Data-parallel DP-SGD on this machine (docs/CLUSTER.md, "Ranks"): `dpmix run … --ranks N` is
// rank 0; ranks 1..N−1 are child processes of the same program (`dpmix rank`), joined over
// loopback through a store on a free port. Each fine-tuning of the run starts its ranks, hands them
// the job (rank_job.h) and ends them. A rank that dies ends the others' waits within the timeout
// (at once when its sockets close), the run fails with an error naming it, and the fine-tuning's
// ledger entry — recorded by rank 0 before the first step — stays.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/distributed/distributed_dp_sgd.h"
#include "engine/distributed/rank_group.h"
#include "engine/privacy/ledger.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/images.h"
#include "engine/train/model.h"

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

namespace dpmix::distributed {

/// How long a rank waits for another — joining, reading the store, each collective — before the
/// run fails: long enough for a slow step on a loaded machine, short enough that a dead rank ends
/// the run well within a minute.
inline constexpr std::chrono::seconds kRankTimeout{30};

struct LocalRankSettings {
    std::string program;  // this program's path (/proc/self/exe), run as `program rank …`
    int ranks = 2;
    std::chrono::milliseconds timeout = kRankTimeout;
    // > 0: torch threads of each child rank (`program --threads N rank …`); rank 0 keeps its own.
    int threadsPerRank = 0;
    RankedRunChecks checks;  // rank 0's (state digests, per-step timing)
};

/// One fine-tuning across `settings.ranks` local ranks, this process as rank 0 (the arguments as
/// finetuneDpSgdAcrossRanks). Every child is reaped before it returns.
Result<train::FinetuneResult> finetuneOnLocalRanks(const LocalRankSettings& settings, train::Model& model,
                                                   const train::ImageView& images, std::span<const int> labels,
                                                   std::span<const std::int64_t> userOfImage,
                                                   const train::DpSgdParams& params, privacy::Ledger& ledger,
                                                   const ProgressCallback& progress, const CancellationToken& cancel);

/// Rank 0's part once the group has formed (however its ranks were started): cuts every rank's
/// shard, sends each its job (rank_job.h) and fine-tunes its own shard. The other ranks are in
/// runRank.
Result<train::FinetuneResult> finetuneAsRankZero(RankStore& store, RankGroup& group, train::Model& model,
                                                 const train::ImageView& images, std::span<const int> labels,
                                                 std::span<const std::int64_t> userOfImage,
                                                 const train::DpSgdParams& params, privacy::Ledger& ledger,
                                                 const RankedRunChecks& checks = {},
                                                 const ProgressCallback& progress = {},
                                                 const CancellationToken& cancel = {});

/// What `dpmix rank` does as rank `rank` of `world`: connects to rank 0's store, joins, receives the
/// job, fine-tunes its shard, and returns (its model is rank 0's; rank 0 stores it).
Status runRank(const RankAddress& address, int rank, int world);
/// runRank's part once connected to the store.
Status runRankOn(RankStore& store, int rank, int world);

}  // namespace dpmix::distributed
