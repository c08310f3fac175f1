#include "engine/distributed/rank_shard.h"

#include <algorithm>

namespace dpmix::distributed {

RankShard cutShard(const train::ImageView& images, std::span<const int> labels,
                   std::span<const std::int64_t> userOfImage, int rank, int world) {
    RankShard s;
    s.channels = images.channels;
    s.height = images.height;
    s.width = images.width;
    const bool userLevel = !userOfImage.empty();
    if (userLevel) {
        s.units = userOfImage.empty() ? 0 : *std::max_element(userOfImage.begin(), userOfImage.end()) + 1;
        s.imagesPerUser.assign(static_cast<std::size_t>(std::max<std::int64_t>(s.units, 0)), 0);
        for (std::int64_t u : userOfImage)
            if (u >= 0) ++s.imagesPerUser[static_cast<std::size_t>(u)];
    } else {
        s.units = images.count;
    }
    const auto size = static_cast<std::size_t>(images.imageSize());
    for (std::int64_t i = 0; i < images.count; ++i) {
        const std::int64_t unit = userLevel ? userOfImage[static_cast<std::size_t>(i)] : i;
        if (unit < 0 || unit % world != rank) continue;
        const auto from = images.pixels.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * size);
        s.pixels.insert(s.pixels.end(), from, from + static_cast<std::ptrdiff_t>(size));
        if (static_cast<std::size_t>(i) < labels.size()) s.labels.push_back(labels[static_cast<std::size_t>(i)]);
        s.unitOfImage.push_back(unit);
        ++s.count;
    }
    return s;
}

}  // namespace dpmix::distributed
