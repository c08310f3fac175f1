#pragma once
// The regime map: where private data selection pays. One cell per (public pool, sensitive set
// size n, ε) of a grid of studies that differ only in n (the sensitive source's first n
// examples), each run with every method on the same seeds; per cell the methods' macro AUC over
// seeds and DP-MixMin's paired differences to Random Init and to Uniform with 95% intervals
// (paired_difference.h). `dpmix experiment regime-map` computes it from the studies' projects
// and can write it as a stored map (JSON) that the workbench advises from (regime_advice.h).
// docs/RESULTS.md, "The regime map", holds the measured map and how to read it.
#include "engine/core/mean_std.h"
#include "engine/core/result.h"
#include "engine/experiments/paired_difference.h"
#include "engine/project/result_summary.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dpmix::experiments {

/// What kind of public pool a study draws on: its public data is one data set seen through label
/// tasks, or several data sets of different kinds (some relevant, some not, some shifted).
enum class PoolKind { OneSource, Heterogeneous };

struct PoolKindTraits {
    PoolKind kind = PoolKind::OneSource;
    std::string_view name;   // as a stored map spells it: "one-source"
    std::string_view label;  // for people: "one public data set"
};
const std::vector<PoolKindTraits>& allPoolKinds();
const PoolKindTraits& traitsOf(PoolKind kind);
Result<PoolKind> parsePoolKind(std::string_view name);
/// A study's pool kind from its number of distinct public sources (1: one source).
PoolKind poolKindOf(std::size_t publicSources);

struct RegimeCell {
    std::string pool;  // the pool's name (its spec's name)
    PoolKind poolKind = PoolKind::OneSource;
    long long n = 0;  // sensitive examples (users at user level) the study holds
    double epsilon = 0.0;
    int tasks = 0;                                               // sensitive tasks in the macro mean
    std::map<std::string, MeanStd> methods;                      // canonical method name → macro AUC over seeds
    std::map<std::string, std::map<long long, double>> perSeed;  // method → seed → macro AUC
    PairedDifference vsRandomInit, vsUniform;                    // DP-MixMin − Random Init, DP-MixMin − Uniform
    /// DP-MixMin is ahead of both baselines beyond seed noise.
    bool paysOff() const { return vsRandomInit.aheadBeyondNoise() && vsUniform.aheadBeyondNoise(); }
};

struct RegimeMap {
    std::string reference;  // what the map was measured on, for people ("Fashion-MNIST, small CNN, …")
    std::string metric = "test-auc";
    std::vector<RegimeCell> cells;  // by pool, n, ε
};

/// The cells of one study (pool, n): per ε, the per-seed macro mean over the tasks every method
/// has on that seed (a seed missing a task for some method counts only the tasks all have, so the
/// pairing compares like with like), then the summaries and paired differences.
std::vector<RegimeCell> regimeCellsOf(const std::vector<project::ResultObservation>& observations,
                                      const std::string& pool, PoolKind kind, long long n);

/// The stored map: {"schema": "dpmix-regime-map-v1", "reference", "metric", "cells": [...]}.
std::string regimeMapToJson(const RegimeMap& map);
/// Parses a stored map; errors name `origin` and the field.
Result<RegimeMap> regimeMapFromJson(const std::string& text, const std::string& origin);

}  // namespace dpmix::experiments
