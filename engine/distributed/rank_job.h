#pragma once
// One data-parallel fine-tuning as rank 0 hands it to the other ranks (docs/CLUSTER.md, "Ranks"):
// the model's spec and device, the DP-SGD parameters (as JSON through the rank store) and each
// rank's own shard of the fine-tuning set (sent to it alone). The other ranks build the model from the spec;
// finetuneDpSgdAcrossRanks then gives them rank 0's weights. Nothing here is secret: in secret
// mode every rank keys its own streams from the operating system, and in seeded mode the seed is
// the project's.
#include "engine/core/result.h"
#include "engine/distributed/rank_group.h"
#include "engine/distributed/rank_shard.h"
#include "engine/train/images.h"
#include "engine/train/model_spec.h"
#include "engine/train/training_params.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dpmix::distributed {

struct RankJob {
    train::ModelSpec spec;
    std::string device = "cpu";
    train::DpSgdParams params;
    RankShard shard;  // this rank's
};

/// The job's settings (spec, device, parameters, the unit count) as JSON text, and back (an error
/// names what is missing or wrong).
std::string rankJobSettings(const RankJob& job);
Status readRankJobSettings(const std::string& json, RankJob& job);

/// Rank 0: the settings into the store, and to each rank r >= 1 its shard, shards[r]. Every other
/// rank must be in receiveRankJob at the same time.
Status sendRankJobs(RankStore& store, RankGroup& group, const RankJob& job, const std::vector<RankShard>& shards);
/// Ranks 1..W−1: the settings and this rank's shard.
Result<RankJob> receiveRankJob(RankStore& store, RankGroup& group);

}  // namespace dpmix::distributed
