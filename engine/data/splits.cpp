#include "engine/data/splits.h"

#include "engine/data/portable_random.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace dpmix::data {
namespace {

constexpr std::uint64_t kRhoSplitStream = 1, kTrainSplitStream = 2, kValidationSplitStream = 3;

std::size_t roundedCount(double fraction, std::size_t total) {
    return static_cast<std::size_t>(std::llround(fraction * static_cast<double>(total)));
}

}  // namespace

Result<TwoWaySplit> splitByFraction(std::size_t n, double fraction, std::uint64_t seed,
                                    const SplitGrouping& grouping) {
    if (!(fraction > 0.0 && fraction < 1.0))
        return Error{"split fraction " + std::to_string(fraction) + " is not valid, expected a value in (0, 1)"};
    if (n == 0) return Error{"cannot split an empty data set"};
    if (!grouping.users.empty() && grouping.users.size() != n)
        return Error{"user ids: " + std::to_string(grouping.users.size()) + " given for " + std::to_string(n) +
                     " examples, expected one per example"};
    if (!grouping.strata.empty() && grouping.strata.size() != n)
        return Error{"strata: " + std::to_string(grouping.strata.size()) + " labels given for " +
                     std::to_string(n) + " examples, expected one per example"};
    if (!grouping.users.empty() && !grouping.strata.empty())
        return Error{"stratification by label is only available for example-level splits, not user-level ones"};

    std::mt19937_64 gen(seed);
    std::vector<unsigned char> inFirst(n, 0);
    if (!grouping.users.empty()) {
        // Users in order of first appearance, so the result does not depend on id spelling.
        std::map<std::string, std::size_t> userIndex;
        std::vector<std::size_t> exampleUser(n);
        for (std::size_t i = 0; i < n; ++i) {
            if (grouping.users[i].empty())
                return Error{"example " + std::to_string(i) + " has no user id; a user-level split needs one for every example"};
            exampleUser[i] = userIndex.emplace(grouping.users[i], userIndex.size()).first->second;
        }
        std::vector<std::size_t> order(userIndex.size());
        for (std::size_t u = 0; u < order.size(); ++u) order[u] = u;
        portableShuffle(order, gen);
        const std::size_t take = roundedCount(fraction, order.size());
        if (take == 0 || take == order.size())
            return Error{"split fraction " + std::to_string(fraction) + " of " + std::to_string(order.size()) +
                         " users leaves one part without users"};
        std::vector<unsigned char> userFirst(order.size(), 0);
        for (std::size_t k = 0; k < take; ++k) userFirst[order[k]] = 1;
        for (std::size_t i = 0; i < n; ++i) inFirst[i] = userFirst[exampleUser[i]];
    } else {
        std::map<int, std::vector<std::size_t>> strata;  // ordered by label: deterministic
        for (std::size_t i = 0; i < n; ++i) strata[grouping.strata.empty() ? 0 : grouping.strata[i]].push_back(i);
        for (auto& [label, members] : strata) {
            portableShuffle(members, gen);
            const std::size_t take = roundedCount(fraction, members.size());
            for (std::size_t k = 0; k < take; ++k) inFirst[members[k]] = 1;
        }
    }
    TwoWaySplit split;
    for (std::size_t i = 0; i < n; ++i) (inFirst[i] ? split.first : split.second).push_back(i);
    if (split.first.empty() || split.second.empty())
        return Error{"split fraction " + std::to_string(fraction) + " of " + std::to_string(n) +
                     " examples leaves one part empty"};
    return split;
}

Result<TwoWaySplit> rhoSplit(std::size_t n, double rho, std::uint64_t runSeed, const SplitGrouping& grouping) {
    auto split = splitByFraction(n, rho, mixSeed(runSeed, kRhoSplitStream), grouping);
    if (!split) return Error{"rho split: " + split.error().message};
    return split;
}

SplitGrouping subsetGrouping(const SplitGrouping& grouping, const std::vector<std::size_t>& indices) {
    SplitGrouping out;
    for (std::size_t i : indices) {
        if (!grouping.users.empty()) out.users.push_back(grouping.users[i]);
        if (!grouping.strata.empty()) out.strata.push_back(grouping.strata[i]);
    }
    return out;
}

Result<ThreeWaySplit> trainValidationTestSplit(std::size_t n, std::uint64_t runSeed, const SplitGrouping& grouping,
                                               double trainFraction, double validationShare) {
    auto outer = splitByFraction(n, trainFraction, mixSeed(runSeed, kTrainSplitStream), grouping);
    if (!outer) return Error{"train/validation/test split: " + outer.error().message};
    const auto& held = outer->second;
    auto inner = splitByFraction(held.size(), validationShare, mixSeed(runSeed, kValidationSplitStream),
                                 subsetGrouping(grouping, held));
    if (!inner) return Error{"train/validation/test split (held-out part): " + inner.error().message};
    ThreeWaySplit split;
    split.train = outer->first;
    for (std::size_t k : inner->first) split.validation.push_back(held[k]);
    for (std::size_t k : inner->second) split.test.push_back(held[k]);
    return split;
}

}  // namespace dpmix::data
