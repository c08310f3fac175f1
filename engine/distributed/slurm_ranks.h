#pragma once
// Data-parallel DP-SGD whose ranks are the tasks of one Slurm job step (`dpmix run … --executor
// slurm --ranks N`; docs/CLUSTER.md, "Ranks"): srun starts `dpmix worker … --ranks N` as every task
// of a unit's array task. Task 0 runs the unit as it would without ranks and is rank 0: it hosts
// the rank store on its own host name at a free port for the unit's whole life and writes
// "host:port" into the attempt's rendezvous folder (the job folder is on a shared file system).
// The other tasks wait for that file (up to kSlurmRendezvous), connect, and serve each DP-SGD
// fine-tuning of the unit in turn (one group per fine-tuning, under its own store prefix) until
// rank 0 says the unit has ended. They touch no project and no budget store: rank 0 alone
// reserves and records. A rank that dies fails the fine-tuning within the rank timeout; a rank 0
// that dies closes the store, which ends the others' wait at once.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/distributed/local_ranks.h"
#include "engine/distributed/rank_group.h"
#include "engine/privacy/ledger.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/images.h"
#include "engine/train/model.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace dpmix::distributed {

/// How long a task waits for rank 0's address: rank 0 writes it before its unit starts, so only a
/// task that started much later than rank 0, or a rank 0 that failed first, runs past it.
inline constexpr std::chrono::seconds kSlurmRendezvous{60};

struct SlurmRankSettings {
    std::string rendezvousDir;  // this attempt's own folder (<job>/ranks/unit-U.<slurm job>.<restart>)
    int ranks = 2;
    std::chrono::milliseconds timeout = kRankTimeout;
    std::chrono::milliseconds rendezvous = kSlurmRendezvous;
};

/// Rank 0 of a unit's Slurm ranks. Its destructor tells the other ranks the unit has ended.
class SlurmRankZero {
public:
    /// Hosts the store on this host's name at a free port and writes the address file (the folder
    /// is created; an address file there already is an error: one attempt, one folder).
    static Result<std::shared_ptr<SlurmRankZero>> host(const SlurmRankSettings& settings);
    ~SlurmRankZero();
    SlurmRankZero(const SlurmRankZero&) = delete;
    SlurmRankZero& operator=(const SlurmRankZero&) = delete;

    int ranks() const { return settings_.ranks; }
    /// One fine-tuning on the ranks (the arguments as finetuneAsRankZero).
    Result<train::FinetuneResult> finetune(train::Model& model, const train::ImageView& images,
                                           std::span<const int> labels, std::span<const std::int64_t> userOfImage,
                                           const train::DpSgdParams& params, privacy::Ledger& ledger,
                                           const ProgressCallback& progress, const CancellationToken& cancel);
    /// Tells the others the unit has ended and, after a unit that succeeded, waits (up to the
    /// timeout) until each has seen it, so that none finds the store gone first.
    void end(bool waitForThem);

private:
    SlurmRankZero(SlurmRankSettings settings, RankStore store);
    SlurmRankSettings settings_;
    RankStore store_;
    int next_ = 0;  // the next fine-tuning's number
    bool ended_ = false;
};

/// What task `rank` > 0 runs: waits for rank 0's address, connects, and serves its fine-tunings
/// until the unit ends (success) or rank 0 fails or goes (an error naming the cause).
Status runSlurmRank(const SlurmRankSettings& settings, int rank);

}  // namespace dpmix::distributed
