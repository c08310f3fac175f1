#pragma once
// Splits of the sensitive data, stable per unit:
//  - the ρ split into split A (fraction ρ, mixture learning) and split B (fine-tuning);
//  - train / validation / test (80% / 10% / 10% by default).
// The side of a unit (an example, or a user with all their examples) depends only on that unit's
// stable identity and the split's seed: u = H(seed, stream, identity) as a 64-bit fraction, and
// the unit is in the first part iff u < fraction. Adding or removing one unit therefore moves no
// other unit to another side — what parallel composition over the disjoint splits requires
// (docs/PRIVACY.md, "Stable splits"). Part sizes are random (Binomial), not round(fraction·n);
// the mechanisms compute q from the realised sizes. Indices are returned sorted ascending.
#include "engine/core/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::data {

struct SplitGrouping {
    std::vector<std::string> users;  // user level: one non-empty id per example; the unit is the user
    std::vector<std::string> keys;   // example level: one stable content key per example (contentKeys());
                                     // empty: the example's index, stable only while examples are appended
};

struct TwoWaySplit {
    std::vector<std::size_t> first;   // split A: about `fraction` of the units
    std::vector<std::size_t> second;  // split B: the rest
};

struct ThreeWaySplit {
    std::vector<std::size_t> train, validation, test;
};

/// Splits n examples by unit. Errors when fraction is outside (0,1), n = 0, the grouping has the
/// wrong length or an empty user id, or either part would be empty.
Result<TwoWaySplit> splitByFraction(std::size_t n, double fraction, std::uint64_t seed,
                                    const SplitGrouping& grouping = {});

/// The ρ split of the sensitive training set (seed stream "rho-split" of the run seed).
Result<TwoWaySplit> rhoSplit(std::size_t n, double rho, std::uint64_t runSeed, const SplitGrouping& grouping = {});

/// Train / validation / test: about trainFraction of the units for training, the rest divided
/// between validation and test by validationShare (default 80% / 10% / 10%), from one hash per unit.
Result<ThreeWaySplit> trainValidationTestSplit(std::size_t n, std::uint64_t runSeed, const SplitGrouping& grouping = {},
                                               double trainFraction = 0.8, double validationShare = 0.5);

/// Restricts a grouping to a subset of examples (e.g. the train split before the ρ split).
SplitGrouping subsetGrouping(const SplitGrouping& grouping, const std::vector<std::size_t>& indices);

/// Stable content keys of images: SHA-256 of each example's pixels and label row (identical
/// examples share a key, and so a side).
struct ImageDataset;
std::vector<std::string> contentKeys(const ImageDataset& images);
/// The same with another label row per example (`labelsPerRow` values each, e.g. the study's
/// task targets of a source loaded with its own classes): the keys of the images carrying them.
std::vector<std::string> contentKeys(const ImageDataset& images, const std::vector<float>& labels,
                                     std::size_t labelsPerRow);

/// The unit position in [0, 2^64) of identity `key` for (seed, stream): exposed for tests.
std::uint64_t unitPosition(std::uint64_t seed, std::uint64_t stream, const std::string& key);

}  // namespace dpmix::data
