#pragma once
// The per-user cap of user-level DP-MixMin (Algorithm 2, G_ULS): a sampled user contributes at
// most G of their examples per step, drawn uniformly without replacement. (Poisson sampling of
// examples and users is engine/data's sampler, the one every DP stage uses.)
#include "engine/privacy/mechanism_random.h"

#include <Eigen/Core>

#include <vector>

namespace dpmix::mixmin {

/// Up to `cap` distinct elements of `pool`, uniformly without replacement (all of them, in
/// order, when pool.size() <= cap). The draws come from the mechanism's sampling stream.
void sampleWithoutReplacement(const std::vector<Eigen::Index>& pool, std::size_t cap, privacy::MechanismRng& rng,
                              std::vector<Eigen::Index>& out);

}  // namespace dpmix::mixmin
