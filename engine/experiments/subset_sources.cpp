#include "engine/experiments/subset_sources.h"

#include "engine/audit/parallel_runs.h"
#include "engine/core/seed_derivation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

namespace dpmix::experiments {

Result<std::vector<std::uint32_t>> chooseClassSubsets(int classes, long long k, std::uint64_t seed) {
    if (classes < 2 || classes > 20)
        return Error{"classes: " + std::to_string(classes) + "; expected between 2 and 20 base classes"};
    const long long available = (1LL << classes) - 1;
    if (k < 1 || k > available)
        return Error{"k: " + std::to_string(k) + " sources; expected 1 to " + std::to_string(available) +
                     " (the non-empty subsets of " + std::to_string(classes) + " classes)"};
    std::vector<std::uint32_t> masks(static_cast<std::size_t>(available));
    std::iota(masks.begin(), masks.end(), 1u);
    // Fisher–Yates with our own index draws (std::shuffle's algorithm is implementation-defined).
    std::mt19937_64 rng(seeds::derive(seed, 0x5B5E7ULL, 0));
    for (std::size_t i = masks.size() - 1; i > 0; --i) {
        const std::size_t j = static_cast<std::size_t>(rng() % (i + 1));
        std::swap(masks[i], masks[j]);
    }
    masks.resize(static_cast<std::size_t>(k));
    return masks;
}

Result<Eigen::MatrixXd> subsetSourceProbabilities(const Eigen::MatrixXd& p, const std::vector<std::uint32_t>& masks) {
    const Eigen::Index n = p.rows(), C = p.cols();
    if (C < 2 || C > 20)
        return Error{"class probabilities: " + std::to_string(C) + " columns; expected 2 to 20 classes"};
    for (std::size_t i = 0; i < masks.size(); ++i)
        if (masks[i] == 0 || (masks[i] >> C) != 0)
            return Error{"subsets: mask " + std::to_string(masks[i]) + " (source " + std::to_string(i) +
                         ") is empty or names a class >= " + std::to_string(C)};
    for (Eigen::Index j = 0; j < n; ++j) {
        if (!((p.row(j).array() >= 0.0).all() && (p.row(j).array() <= 1.0).all()))
            return Error{"class probabilities: row " + std::to_string(j) + " has a value outside [0, 1]"};
        if (std::fabs(p.row(j).sum() - 1.0) > 1e-3)
            return Error{"class probabilities: row " + std::to_string(j) + " sums to " +
                         std::to_string(p.row(j).sum()) + "; expected 1 (within 1e-3)"};
    }
    // Indicator matrix M (C × k), M(c, i) = 1 iff c ∈ S_i, so P = p · M.
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(C, static_cast<Eigen::Index>(masks.size()));
    for (std::size_t i = 0; i < masks.size(); ++i)
        for (Eigen::Index c = 0; c < C; ++c)
            if (masks[i] >> c & 1u) m(c, static_cast<Eigen::Index>(i)) = 1.0;
    Eigen::MatrixXd out = p * m;
    return Eigen::MatrixXd(out.array().min(1.0).max(0.0));
}

}  // namespace dpmix::experiments
