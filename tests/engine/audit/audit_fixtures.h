#pragma once
// Synthetic split-A data for the audit tests (test-only, header-only).
#include "../mixmin/synthetic_proxies.h"
#include "engine/mixmin/objective.h"

#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <vector>

namespace dpmix::audit::testing {

// The mixture tests' generator, shared: λ* interior with source 0 on top.
using mixmin::testing::BinaryData;
using mixmin::testing::informativeSourceData;

inline mixmin::MixtureObjective objectiveOf(const BinaryData& d) {
    return mixmin::makeBinaryObjective(d.p, d.y).value();
}

}  // namespace dpmix::audit::testing

namespace dpmix::audit::testing {

/// A rare-finding task (5% positives, low proxy probabilities, like a rare NIH class): the
/// per-example gradients are small next to C = 13, so without noise a max-clipped canary
/// stands out of the Poisson-sampling variation — the setting in which the paper's no-noise
/// control finds leakage.
inline BinaryData rareFindingData(int n, int k, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::bernoulli_distribution label(0.05);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    BinaryData d{Eigen::MatrixXd(n, k), std::vector<int>(static_cast<std::size_t>(n))};
    for (int j = 0; j < n; ++j) {
        const int y = label(rng) ? 1 : 0;
        d.y[static_cast<std::size_t>(j)] = y;
        const bool right = u01(rng) < 0.85;
        d.p(j, 0) = (right == (y == 1)) ? 0.3 + 0.3 * u01(rng) : 0.01 + 0.04 * u01(rng);
        for (int i = 1; i < k; ++i) d.p(j, i) = 1.0 / (1.0 + std::exp(-(0.5 * y - 3.0 + 0.5 * noise(rng))));
    }
    return d;
}

}  // namespace dpmix::audit::testing
