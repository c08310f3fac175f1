#include "engine/mixmin/poisson_sampling.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dpmix::mixmin {

void poissonSample(Eigen::Index n, double q, std::mt19937_64& rng, std::vector<Eigen::Index>& out) {
    out.clear();
    if (q >= 1.0) {
        for (Eigen::Index j = 0; j < n; ++j) out.push_back(j);
        return;
    }
    // u_j < q on a 64-bit grid: a raw draw below floor(q · 2^64). The inclusion probability is
    // floor(q · 2^64) / 2^64 — exactly q for every double q >= 2^-11, never above q otherwise
    // (a smaller rate only strengthens the accounted guarantee) — at half the cost of a double.
    const auto threshold = static_cast<std::uint64_t>(std::ldexp(q, 64));
    for (Eigen::Index j = 0; j < n; ++j)
        if (rng() < threshold) out.push_back(j);
}

void sampleWithoutReplacement(const std::vector<Eigen::Index>& pool, std::size_t cap, std::mt19937_64& rng,
                              std::vector<Eigen::Index>& out) {
    out = pool;
    if (pool.size() <= cap) return;
    // Partial Fisher–Yates: the first `cap` slots become a uniform sample without replacement.
    for (std::size_t i = 0; i < cap; ++i) {
        std::uniform_int_distribution<std::size_t> pick(i, out.size() - 1);
        std::swap(out[i], out[pick(rng)]);
    }
    out.resize(cap);
}

}  // namespace dpmix::mixmin
