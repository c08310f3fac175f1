#pragma once
// Data-parallel DP-SGD over a RankGroup (docs/PRIVACY.md, "Data-parallel DP-SGD"; docs/CLUSTER.md,
// "Ranks"): every rank calls the same function with the same model spec and parameters, and its
// own shard of the fine-tuning set; rank 0's model is broadcast first, each rank computes the
// clipped sum of the sampled units of its shard (unit u on rank u mod W), rank 0 adds the Gaussian noise once, and the
// all-reduced noisy sum steps every rank's copy of the model. Rank 0 alone records the ledger
// entry (with the world size), before the first step. The Dirichlet mechanism and AdaMix-R have
// no data-parallel form: the pipeline refuses them (pipeline/dp_sgd_on_ranks.h).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/distributed/rank_group.h"
#include "engine/distributed/rank_shard.h"
#include "engine/privacy/ledger.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/images.h"
#include "engine/train/model.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace dpmix::distributed {

struct RankedRunChecks {
    // > 0: every this many steps the ranks compare a SHA-256 of their parameters and momentum
    // buffers, and the run fails on a difference (tests; a few ms per check on small models).
    long long stateCheckEvery = 0;
    // Called on this rank after each step t (1-based), once the update is applied: per-step timing
    // (bench/bench_ddp_step). Empty: nothing.
    std::function<void(long long)> afterEachStep;
};

/// One rank's part of the run, on its shard (rank_shard.h). params.ranks must equal
/// group.world(). Errors: the 1-process checks (dp_sgd.h), a shard that is not this rank's, a rank
/// that ends or does not answer within the group's timeout (the message names the rank), a state
/// digest that differs between ranks.
Result<train::FinetuneResult> finetuneDpSgdAcrossRanks(RankGroup& group, train::Model& model, const RankShard& shard,
                                                       const train::DpSgdParams& params, privacy::Ledger& ledger,
                                                       const RankedRunChecks& checks = {},
                                                       const ProgressCallback& progress = {},
                                                       const CancellationToken& cancel = {});

/// SHA-256 (hex) of a model's parameters: what the ranks compare.
std::string parameterDigest(const train::Model& model);

}  // namespace dpmix::distributed
