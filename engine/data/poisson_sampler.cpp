#include "engine/data/poisson_sampler.h"

#include "engine/data/portable_random.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace dpmix::data {
namespace {

void checkRate(double q) {
    if (!(q >= 0.0 && q <= 1.0))
        throw std::invalid_argument("Poisson sampling rate q = " + std::to_string(q) + ", expected 0 <= q <= 1");
}

}  // namespace

std::vector<std::size_t> poissonSample(std::size_t n, double q, std::mt19937_64& gen) {
    checkRate(q);
    std::vector<std::size_t> batch;
    batch.reserve(static_cast<std::size_t>(q * static_cast<double>(n) * 1.2) + 16);
    for (std::size_t j = 0; j < n; ++j)
        if (uniform01(gen) < q) batch.push_back(j);
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
    for (const auto& members : groups.examples)
        if (uniform01(gen) < q) batch.insert(batch.end(), members.begin(), members.end());
    std::sort(batch.begin(), batch.end());
    return batch;
}

}  // namespace dpmix::data
