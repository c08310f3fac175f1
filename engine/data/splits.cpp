#include "engine/data/splits.h"

#include "engine/core/seed_derivation.h"
#include "engine/data/portable_random.h"
#include "engine/data/sha256.h"
#include "engine/data/source_loader.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace dpmix::data {
namespace {

constexpr std::uint64_t kRhoSplitStream = 1, kTrainSplitStream = 2;

// fraction·2^64 as an integer threshold (fraction in (0, 1)).
std::uint64_t thresholdOf(double fraction) { return static_cast<std::uint64_t>(std::ldexp(fraction, 64)); }

Status checkGrouping(std::size_t n, const SplitGrouping& grouping) {
    if (n == 0) return Error{"cannot split an empty data set"};
    if (!grouping.users.empty() && grouping.users.size() != n)
        return Error{"user ids: " + std::to_string(grouping.users.size()) + " given for " + std::to_string(n) +
                     " examples, expected one per example"};
    if (!grouping.keys.empty() && grouping.keys.size() != n)
        return Error{"example keys: " + std::to_string(grouping.keys.size()) + " given for " + std::to_string(n) +
                     " examples, expected one per example"};
    if (!grouping.users.empty() && !grouping.keys.empty())
        return Error{
            "both user ids and example keys given: give user ids (user level) or example keys (example level)"};
    for (std::size_t i = 0; i < grouping.users.size(); ++i)
        if (grouping.users[i].empty())
            return Error{"example " + std::to_string(i) +
                         " has no user id; a user-level split needs one for every example"};
    return std::nullopt;
}

// The identity of example i's unit: its user (user level), its content key, or its index.
std::string unitOf(const SplitGrouping& grouping, std::size_t i) {
    if (!grouping.users.empty()) return "user:" + grouping.users[i];
    if (!grouping.keys.empty()) return "key:" + grouping.keys[i];
    return "index:" + std::to_string(i);
}

// Each example's position, computed once per unit.
std::vector<std::uint64_t> positions(std::size_t n, std::uint64_t seed, std::uint64_t stream,
                                     const SplitGrouping& grouping) {
    std::vector<std::uint64_t> out(n);
    std::map<std::string, std::uint64_t> seen;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string unit = unitOf(grouping, i);
        auto it = seen.find(unit);
        if (it == seen.end()) it = seen.emplace(unit, unitPosition(seed, stream, unit)).first;
        out[i] = it->second;
    }
    return out;
}

std::size_t distinctUnits(const SplitGrouping& grouping, const std::vector<std::size_t>& part) {
    std::map<std::string, int> units;
    for (std::size_t i : part) units.emplace(unitOf(grouping, i), 0);
    return units.size();
}

}  // namespace

std::uint64_t unitPosition(std::uint64_t seed, std::uint64_t stream, const std::string& key) {
    Sha256 h;
    h.update(std::string_view("dpmix stable split v1"));
    unsigned char bytes[16];
    for (int b = 0; b < 8; ++b) {
        bytes[b] = static_cast<unsigned char>(seed >> (8 * b));
        bytes[8 + b] = static_cast<unsigned char>(stream >> (8 * b));
    }
    h.update(bytes, sizeof bytes);
    h.update(key);
    const auto d = h.digest();
    std::uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v = (v << 8) | d[static_cast<std::size_t>(b)];
    return v;
}

Result<TwoWaySplit> splitByFraction(std::size_t n, double fraction, std::uint64_t seed, const SplitGrouping& grouping) {
    if (!(fraction > 0.0 && fraction < 1.0))
        return Error{"split fraction " + std::to_string(fraction) + " is not valid, expected a value in (0, 1)"};
    if (auto e = checkGrouping(n, grouping)) return *e;
    const std::uint64_t threshold = thresholdOf(fraction);
    const std::vector<std::uint64_t> u = positions(n, seed, 0, grouping);
    TwoWaySplit split;
    for (std::size_t i = 0; i < n; ++i) (u[i] < threshold ? split.first : split.second).push_back(i);
    if (split.first.empty() || split.second.empty()) {
        const bool users = !grouping.users.empty();
        const std::size_t units =
            users ? distinctUnits(grouping, split.first) + distinctUnits(grouping, split.second) : n;
        return Error{"split fraction " + std::to_string(fraction) + " of " + std::to_string(units) +
                     (users ? " users leaves one part without users" : " examples leaves one part empty")};
    }
    return split;
}

Result<TwoWaySplit> rhoSplit(std::size_t n, double rho, std::uint64_t runSeed, const SplitGrouping& grouping) {
    auto split = splitByFraction(n, rho, seeds::mix(runSeed, kRhoSplitStream), grouping);
    if (!split) return Error{"rho split: " + split.error().message};
    return split;
}

SplitGrouping subsetGrouping(const SplitGrouping& grouping, const std::vector<std::size_t>& indices) {
    SplitGrouping out;
    const bool byIndex = grouping.users.empty() && grouping.keys.empty();
    for (std::size_t i : indices) {
        if (!grouping.users.empty()) out.users.push_back(grouping.users[i]);
        if (!grouping.keys.empty()) out.keys.push_back(grouping.keys[i]);
        // Index identities refer to the full data set, not to the subset's positions.
        if (byIndex) out.keys.push_back("index:" + std::to_string(i));
    }
    return out;
}

Result<ThreeWaySplit> trainValidationTestSplit(std::size_t n, std::uint64_t runSeed, const SplitGrouping& grouping,
                                               double trainFraction, double validationShare) {
    if (!(trainFraction > 0.0 && trainFraction < 1.0) || !(validationShare > 0.0 && validationShare < 1.0))
        return Error{"train/validation/test split: fractions must lie in (0, 1)"};
    if (auto e = checkGrouping(n, grouping)) return Error{"train/validation/test split: " + e->message};
    const std::uint64_t trainBelow = thresholdOf(trainFraction);
    const std::uint64_t validationBelow = thresholdOf(trainFraction + (1.0 - trainFraction) * validationShare);
    const std::vector<std::uint64_t> u = positions(n, seeds::mix(runSeed, kTrainSplitStream), 0, grouping);
    ThreeWaySplit split;
    for (std::size_t i = 0; i < n; ++i)
        (u[i] < trainBelow ? split.train : u[i] < validationBelow ? split.validation : split.test).push_back(i);
    if (split.train.empty() || split.validation.empty() || split.test.empty())
        return Error{"train/validation/test split: " + std::to_string(n) +
                     " examples leave the training, validation or test part empty; more data is needed"};
    return split;
}

std::vector<std::string> contentKeys(const ImageDataset& images) {
    return contentKeys(images, images.labels, images.numLabels());
}

std::vector<std::string> contentKeys(const ImageDataset& images, const std::vector<float>& labelRows,
                                     std::size_t labels) {
    const std::size_t n = images.size(), pixels = images.imageSize();
    std::vector<std::string> keys(n);
    for (std::size_t i = 0; i < n; ++i) {
        Sha256 h;
        h.update(images.pixels.data() + i * pixels, pixels * sizeof(float));
        if (labels > 0) h.update(labelRows.data() + i * labels, labels * sizeof(float));
        const auto d = h.digest();
        keys[i].assign(reinterpret_cast<const char*>(d.data()), d.size());
    }
    return keys;
}

}  // namespace dpmix::data
