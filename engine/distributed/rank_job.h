#pragma once
// One data-parallel fine-tuning as rank 0 hands it to the other ranks (docs/CLUSTER.md, "Ranks"):
// the model's spec and device, the DP-SGD parameters (as JSON through the rank store) and the
// fine-tuning set (broadcast over the group). The other ranks build the model from the spec;
// finetuneDpSgdAcrossRanks then gives them rank 0's weights. Nothing here is secret: in secret
// mode every rank keys its own streams from the operating system, and in seeded mode the seed is
// the project's.
#include "engine/core/result.h"
#include "engine/distributed/rank_group.h"
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
    std::vector<float> pixels;  // count × C × H × W
    std::int64_t count = 0;
    std::vector<std::int64_t> labels;
    std::vector<std::int64_t> userOfImage;  // empty: example level

    train::ImageView images() const { return {pixels, count, spec.channels, spec.height, spec.width}; }
    std::vector<int> intLabels() const { return {labels.begin(), labels.end()}; }
};

/// The job's settings as JSON text, and back (an error names the field that is missing or wrong).
std::string rankJobSettings(const RankJob& job);
Status readRankJobSettings(const std::string& json, RankJob& job);

/// Rank 0: the settings into the store, the data over the group. Every other rank must be in
/// receiveRankJob at the same time.
Status sendRankJob(RankStore& store, RankGroup& group, const RankJob& job);
/// Ranks 1..W−1: the job rank 0 sent.
Result<RankJob> receiveRankJob(RankStore& store, RankGroup& group);

}  // namespace dpmix::distributed
