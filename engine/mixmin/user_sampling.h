#pragma once
// The per-user cap of user-level DP-MixMin (Algorithm 2, G_ULS): a sampled user contributes at
// most G of their examples per step, drawn uniformly without replacement. (Poisson sampling of
// examples and users is engine/data's sampler, the one every DP stage uses.)
#include <Eigen/Core>

#include <random>
#include <vector>

namespace dpmix::mixmin {

/// Up to `cap` distinct elements of `pool`, uniformly without replacement (all of them, in
/// order, when pool.size() <= cap). Portable: the draws depend on mt19937_64 alone.
void sampleWithoutReplacement(const std::vector<Eigen::Index>& pool, std::size_t cap, std::mt19937_64& rng,
                              std::vector<Eigen::Index>& out);

}  // namespace dpmix::mixmin
