#pragma once
// Splits of the sensitive data, deterministic from the run seed:
//  - the ρ split into split A (fraction ρ, mixture learning) and split B (fine-tuning);
//  - train / validation / test (80% / 10% / 10% by default).
// Example-level or user-level (along user boundaries: no user in two parts), optionally
// stratified by label (example-level only). Indices are returned sorted ascending.
#include "engine/core/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::data {

struct SplitGrouping {
    std::vector<std::string> users;   // empty = example-level; else one non-empty id per example
    std::vector<int> strata;          // empty = no stratification; else one label id per example
};

struct TwoWaySplit {
    std::vector<std::size_t> first;   // split A: fraction of the examples (or users)
    std::vector<std::size_t> second;  // split B: the rest
};

struct ThreeWaySplit {
    std::vector<std::size_t> train, validation, test;
};

/// Splits n examples: `first` gets round(fraction·n) examples (per stratum when stratified) or
/// round(fraction·users) whole users. Errors when fraction is outside (0,1), n = 0, the grouping
/// has the wrong length or an empty user id, or either part would be empty.
Result<TwoWaySplit> splitByFraction(std::size_t n, double fraction, std::uint64_t seed,
                                    const SplitGrouping& grouping = {});

/// The ρ split of the sensitive training set (seed stream "rho-split" of the run seed).
Result<TwoWaySplit> rhoSplit(std::size_t n, double rho, std::uint64_t runSeed,
                             const SplitGrouping& grouping = {});

/// Train / validation / test: trainFraction of the examples (or users) for training, the rest
/// divided between validation and test by validationShare (default 80% / 10% / 10%).
Result<ThreeWaySplit> trainValidationTestSplit(std::size_t n, std::uint64_t runSeed,
                                               const SplitGrouping& grouping = {},
                                               double trainFraction = 0.8, double validationShare = 0.5);

/// Restricts a grouping to a subset of examples (e.g. the train split before the ρ split).
SplitGrouping subsetGrouping(const SplitGrouping& grouping, const std::vector<std::size_t>& indices);

}  // namespace dpmix::data
