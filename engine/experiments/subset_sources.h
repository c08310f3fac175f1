#pragma once
// Many sources from one multi-class proxy (docs/ALGORITHMS.md A.10, F.12): source S is the
// binary task "class ∈ S" for a non-empty subset S of the C base classes, and its proxy
// prediction is Σ_{c∈S} p(c | x). With C = 10 (Fashion-MNIST) there are 2^10 − 1 = 1,023 such
// sources. Subsets are bit masks: bit c set ⇔ class c ∈ S.
#include "engine/core/result.h"

#include <Eigen/Dense>

#include <cstdint>
#include <vector>

namespace dpmix::experiments {

/// k distinct non-empty subsets of `classes` base classes, chosen uniformly without replacement
/// from the seed. Nested: the subsets for k are the first k of those for any larger k (one
/// seeded permutation of all 2^C − 1 masks), so growing k only adds sources.
/// Errors: classes outside [2, 20], k outside [1, 2^C − 1] (naming "k" / "classes").
Result<std::vector<std::uint32_t>> chooseClassSubsets(int classes, long long k, std::uint64_t seed);

/// n × k matrix P(j, i) = Σ_{c ∈ S_i} p(c | x_j) (clamped to [0, 1] against rounding) from the
/// n × C class-probability matrix. Errors: a mask naming a class ≥ C or empty, probabilities
/// outside [0, 1], or rows not summing to 1 within 1e-3 (naming the row).
Result<Eigen::MatrixXd> subsetSourceProbabilities(const Eigen::MatrixXd& classProbabilities,
                                                  const std::vector<std::uint32_t>& masks);

}  // namespace dpmix::experiments
