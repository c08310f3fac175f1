#pragma once
// Poisson subsampling, the sampler of every DP stage: each example (or user) is included
// independently with probability q (u_j < q, u_j ~ U[0,1), here u_j = r_j / 2^64 for a raw
// 64-bit draw r_j), so the batch size is random.
// Never replace it by fixed-size shuffling: the privacy accounting assumes this sampler.
// `Gen` is a generator of 64 random bits per call; inside a DP mechanism it is the mechanism's
// secret privacy::MechanismRng (the amplification by subsampling assumes the batches are secret).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace dpmix::data {

namespace detail {
/// Throws std::invalid_argument unless 0 <= q <= 1.
void checkSamplingRate(double q);
// u < q with u = r / 2^64 for a raw 64-bit draw r is r < q·2^64: an integer comparison that
// uses all 64 bits (u's resolution is 2^-64, not 2^-53). q = 1 includes everything.
inline std::uint64_t inclusionThreshold(double q) { return q >= 1.0 ? 0 : static_cast<std::uint64_t>(q * 0x1.0p64); }
}  // namespace detail

/// Indices j in [0, n) with u_j < q, ascending. Throws std::invalid_argument unless 0 <= q <= 1
/// (q is validated where the user enters it; reaching here with a bad q is a program error).
template <typename Gen>
std::vector<std::size_t> poissonSample(std::size_t n, double q, Gen& gen) {
    static_assert(Gen::min() == 0 && Gen::max() == ~std::uint64_t{0}, "expects 64 random bits per call");
    detail::checkSamplingRate(q);
    const std::uint64_t threshold = detail::inclusionThreshold(q);
    const bool all = q >= 1.0;
    std::vector<std::size_t> batch;
    batch.reserve(static_cast<std::size_t>(q * static_cast<double>(n) * 1.2) + 16);
    for (std::size_t j = 0; j < n; ++j) {
        const std::uint64_t draw = gen();  // one draw per unit, also when q = 1
        if (all || draw < threshold) batch.push_back(j);
    }
    return batch;
}

/// Examples grouped by user, for user-level sampling.
struct UserGroups {
    std::vector<std::string> userIds;                // in order of first appearance
    std::vector<std::vector<std::size_t>> examples;  // examples[u] = indices of user u's examples
};

UserGroups groupByUser(const std::vector<std::string>& users);

/// User-level Poisson sampling: each user is included with probability q; returns the indices of
/// all examples of the sampled users, ascending.
template <typename Gen>
std::vector<std::size_t> poissonSampleUsers(const UserGroups& groups, double q, Gen& gen) {
    const std::vector<std::size_t> users = poissonSample(groups.examples.size(), q, gen);
    std::vector<std::size_t> batch;
    for (std::size_t u : users) batch.insert(batch.end(), groups.examples[u].begin(), groups.examples[u].end());
    std::sort(batch.begin(), batch.end());
    return batch;
}

}  // namespace dpmix::data
