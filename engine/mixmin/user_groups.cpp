#include "engine/mixmin/user_groups.h"

#include <string>
#include <unordered_map>

namespace dpmix::mixmin {

Eigen::VectorXd UserGroups::userMeanWeights() const {
    Eigen::VectorXd w = Eigen::VectorXd::Zero(examples_);
    const double m = static_cast<double>(examplesOf_.size());
    for (const auto& ex : examplesOf_)
        for (Eigen::Index j : ex) w(j) = 1.0 / (m * static_cast<double>(ex.size()));
    return w;
}

Result<UserGroups> makeUserGroups(std::vector<std::vector<Eigen::Index>> examplesOfUser, Eigen::Index examples) {
    if (examplesOfUser.empty()) return Error{"users: no users: expected at least one user with examples"};
    std::vector<long long> owner(static_cast<std::size_t>(std::max<Eigen::Index>(examples, 0)), -1);
    for (std::size_t u = 0; u < examplesOfUser.size(); ++u) {
        if (examplesOfUser[u].empty())
            return Error{"users: user " + std::to_string(u) + " has no examples: expected at least one per user"};
        for (Eigen::Index j : examplesOfUser[u]) {
            if (j < 0 || j >= examples)
                return Error{"users: user " + std::to_string(u) + " lists example " + std::to_string(j) +
                             ": expected an example index in 0.." + std::to_string(examples - 1)};
            auto& o = owner[static_cast<std::size_t>(j)];
            if (o != -1)
                return Error{"users: example " + std::to_string(j) + " belongs to user " + std::to_string(o) +
                             " and user " + std::to_string(u) + ": expected each example to belong to one user"};
            o = static_cast<long long>(u);
        }
    }
    UserGroups g;
    g.examplesOf_ = std::move(examplesOfUser);
    g.examples_ = examples;
    return g;
}

Result<UserGroups> makeUserGroupsFromIds(const std::vector<long long>& userOfExample) {
    std::unordered_map<long long, std::size_t> index;
    std::vector<std::vector<Eigen::Index>> groups;
    for (std::size_t j = 0; j < userOfExample.size(); ++j) {
        auto [it, inserted] = index.try_emplace(userOfExample[j], groups.size());
        if (inserted) groups.emplace_back();
        groups[it->second].push_back(static_cast<Eigen::Index>(j));
    }
    return makeUserGroups(std::move(groups), static_cast<Eigen::Index>(userOfExample.size()));
}

}  // namespace dpmix::mixmin
