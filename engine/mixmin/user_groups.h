#pragma once
// Which examples of split A belong to which user, for user-level DP-MixMin (Algorithm 2).
#include "engine/core/result.h"

#include <Eigen/Core>

#include <vector>

namespace dpmix::mixmin {

class UserGroups {
public:
    Eigen::Index users() const { return static_cast<Eigen::Index>(examplesOf_.size()); }  // m
    Eigen::Index examples() const { return examples_; }                                   // n
    const std::vector<Eigen::Index>& examplesOf(Eigen::Index user) const {
        return examplesOf_[static_cast<std::size_t>(user)];
    }

    /// w_j = 1 / (m · |E_u|) for example j of user u: the weights under which F is the mean over
    /// users of each user's mean loss — the objective Algorithm 2 estimates (docs/ALGORITHMS.md A.4).
    Eigen::VectorXd userMeanWeights() const;

private:
    friend Result<UserGroups> makeUserGroups(std::vector<std::vector<Eigen::Index>>, Eigen::Index);
    std::vector<std::vector<Eigen::Index>> examplesOf_;
    Eigen::Index examples_ = 0;
};

/// Validates a user partition of n examples: every user has at least one example, every index
/// is in [0, n), and no example belongs to two users (user-level sensitivity relies on it).
/// Examples that belong to nobody are allowed (they are simply not used).
Result<UserGroups> makeUserGroups(std::vector<std::vector<Eigen::Index>> examplesOfUser, Eigen::Index examples);

/// The same from one user id per example (ids are arbitrary integers; users are numbered in
/// order of first appearance).
Result<UserGroups> makeUserGroupsFromIds(const std::vector<long long>& userOfExample);

}  // namespace dpmix::mixmin
