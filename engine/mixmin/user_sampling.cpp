#include "engine/mixmin/user_sampling.h"

#include "engine/data/portable_random.h"

#include <utility>

namespace dpmix::mixmin {

void sampleWithoutReplacement(const std::vector<Eigen::Index>& pool, std::size_t cap, privacy::MechanismRng& rng,
                              std::vector<Eigen::Index>& out) {
    out = pool;
    if (pool.size() <= cap) return;
    // Partial Fisher–Yates: the first `cap` slots become a uniform sample without replacement.
    for (std::size_t i = 0; i < cap; ++i) {
        const auto j = i + static_cast<std::size_t>(data::uniformBelow(rng, out.size() - i));
        std::swap(out[i], out[j]);
    }
    out.resize(cap);
}

}  // namespace dpmix::mixmin
