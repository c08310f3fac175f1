#pragma once
// Poisson sampling for DP-MixMin: every unit (example or user) joins a step's batch
// independently with probability q, so batch sizes are random (the subsampled-Gaussian
// accountant assumes exactly this; fixed-size shuffled batches would void its guarantee).
// A small private sampler: engine/data had none when this module was written.
#include <Eigen/Core>

#include <random>
#include <vector>

namespace dpmix::mixmin {

/// Fills `out` with the indices j in [0, n) for which an independent uniform draw is < q
/// (q = 1 selects every index). One 64-bit draw per unit, in index order, from `rng`.
void poissonSample(Eigen::Index n, double q, std::mt19937_64& rng, std::vector<Eigen::Index>& out);

/// Up to `cap` distinct elements of `pool`, uniformly without replacement (all of them, in
/// order, when pool.size() <= cap). Used for the per-user cap G_ULS of Algorithm 2.
void sampleWithoutReplacement(const std::vector<Eigen::Index>& pool, std::size_t cap, std::mt19937_64& rng,
                              std::vector<Eigen::Index>& out);

}  // namespace dpmix::mixmin
