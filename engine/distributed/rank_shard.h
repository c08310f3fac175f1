#pragma once
// One rank's part of the fine-tuning set (docs/PRIVACY.md, "Data-parallel DP-SGD"): the images of
// the units it owns — unit u (an example, or a user with all of their images) on rank u mod W —
// in the order of the whole set, and what every rank must know of the others: how many units there
// are, and at user level how many images each user has (the draws of a user's images are made for
// every sampled user, so the streams match a 1-rank run). Rank 0 cuts every rank's shard and sends
// each its own (rank_job.h); no rank but 0 holds another's images.
#include "engine/train/images.h"

#include <cstdint>
#include <span>
#include <vector>

namespace dpmix::distributed {

struct RankShard {
    std::vector<float> pixels;  // count × C × H × W
    std::int64_t count = 0;
    int channels = 0, height = 0, width = 0;
    std::vector<int> labels;
    std::vector<std::int64_t> unitOfImage;    // each held image's example index, or its user
    std::int64_t units = 0;                   // every rank's examples, or users
    std::vector<std::int64_t> imagesPerUser;  // user level: every user's image count; empty: example level

    train::ImageView images() const { return {pixels, count, channels, height, width}; }
};

/// Rank `rank`'s shard of the set (`userOfImage` empty: example level; else users numbered
/// 0..m−1, as finetuneUserLevelDpSgd takes them).
RankShard cutShard(const train::ImageView& images, std::span<const int> labels,
                   std::span<const std::int64_t> userOfImage, int rank, int world);

}  // namespace dpmix::distributed
