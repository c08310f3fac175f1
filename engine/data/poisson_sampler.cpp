#include "engine/data/poisson_sampler.h"

#include <stdexcept>
#include <unordered_map>

namespace dpmix::data {

void detail::checkSamplingRate(double q) {
    if (!(q >= 0.0 && q <= 1.0))
        throw std::invalid_argument("Poisson sampling rate q = " + std::to_string(q) + ", expected 0 <= q <= 1");
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

}  // namespace dpmix::data
