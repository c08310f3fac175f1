#include "engine/data/poisson_sampler.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>

namespace dpmix::data {
namespace {

void checkRate(double q) {
    if (!(q >= 0.0 && q <= 1.0))
        throw std::invalid_argument("Poisson sampling rate q = " + std::to_string(q) + ", expected 0 <= q <= 1");
}

// u < q with u = r / 2^64 for a raw 64-bit draw r is r < q·2^64: an integer comparison that
// uses all 64 bits (u's resolution is 2^-64, not 2^-53). q = 1 includes everything.
bool included(std::uint64_t draw, std::uint64_t threshold, bool all) { return all || draw < threshold; }

std::uint64_t thresholdFor(double q) { return q >= 1.0 ? 0 : static_cast<std::uint64_t>(q * 0x1.0p64); }

}  // namespace

std::vector<std::size_t> poissonSample(std::size_t n, double q, std::mt19937_64& gen) {
    checkRate(q);
    const std::uint64_t threshold = thresholdFor(q);
    const bool all = q >= 1.0;
    std::vector<std::size_t> batch;
    batch.reserve(static_cast<std::size_t>(q * static_cast<double>(n) * 1.2) + 16);
    for (std::size_t j = 0; j < n; ++j)
        if (included(gen(), threshold, all)) batch.push_back(j);
    return batch;
}

UserGroups groupByUser(const std::vector<std::string>& users) {
    UserGroups groups;
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < users.size(); ++i) {
        const auto [it, inserted] = index.emplace(users[i], groups.userIds.size());
        if (inserted) {
            groups.userIds.push_back(users[i]);
            groups.examples.emplace_back();
        }
        groups.examples[it->second].push_back(i);
    }
    return groups;
}

std::vector<std::size_t> poissonSampleUsers(const UserGroups& groups, double q, std::mt19937_64& gen) {
    checkRate(q);
    std::vector<std::size_t> batch;
    const std::uint64_t threshold = thresholdFor(q);
    for (const auto& members : groups.examples)
        if (included(gen(), threshold, q >= 1.0)) batch.insert(batch.end(), members.begin(), members.end());
    std::sort(batch.begin(), batch.end());
    return batch;
}

}  // namespace dpmix::data
