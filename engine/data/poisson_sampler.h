#pragma once
// Poisson subsampling, the sampler of every DP stage: each example (or user) is included
// independently with probability q (u_j < q, u_j ~ U[0,1), here u_j = r_j / 2^64 for a raw
// 64-bit draw r_j), so the batch size is random.
// Never replace it by fixed-size shuffling: the privacy accounting assumes this sampler.
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace dpmix::data {

/// Indices j in [0, n) with u_j < q, ascending. Throws std::invalid_argument unless 0 <= q <= 1
/// (q is validated where the user enters it; reaching here with a bad q is a program error).
std::vector<std::size_t> poissonSample(std::size_t n, double q, std::mt19937_64& gen);

/// Examples grouped by user, for user-level sampling.
struct UserGroups {
    std::vector<std::string> userIds;                 // in order of first appearance
    std::vector<std::vector<std::size_t>> examples;   // examples[u] = indices of user u's examples
};

UserGroups groupByUser(const std::vector<std::string>& users);

/// User-level Poisson sampling: each user is included with probability q; returns the indices of
/// all examples of the sampled users, ascending.
std::vector<std::size_t> poissonSampleUsers(const UserGroups& groups, double q, std::mt19937_64& gen);

}  // namespace dpmix::data
