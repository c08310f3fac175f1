#pragma once
// Where a mixture puts its weight, per public source rather than per component: the check that
// DP-MixMin leaves alone the sources the non-private optimum λ* does not want (the acceptance check of the
// heterogeneous pool; docs/RESULTS.md, "The regime map"). A component named
// "source / task" (a study with several public sources) belongs to `source`; a study with one
// public source has one source, its components' names carry no prefix.
#include "engine/core/result.h"
#include "engine/project/project_file.h"

#include <map>
#include <string>
#include <vector>

namespace dpmix::experiments {

/// λ summed per source, in the order the sources first appear among the components.
std::vector<std::pair<std::string, double>> weightBySource(const std::vector<std::string>& components,
                                                           const std::vector<double>& lambda);

struct SourceWeightRow {
    std::string task;
    double epsilon = 0.0;
    int seeds = 0;
    std::vector<std::string> sources;
    std::vector<double> dp, star;  // per source, mean over seeds of λ_DP's and λ*'s weight
    // Per seed, the sources λ* gives less than `neglectBelow`, and λ_DP's total weight on them:
    // the mean and the largest over seeds.
    double dpOnNeglectedMean = 0.0, dpOnNeglectedMax = 0.0;
    std::vector<std::string> neglectedEverySeed;  // sources below the threshold on every seed
};

/// From a project's finished DP-MixMin runs (their private λ and λ* records), one row per (task, ε).
Result<std::vector<SourceWeightRow>> storedSourceWeights(const project::ProjectFile& project,
                                                         double neglectBelow = 0.02);

}  // namespace dpmix::experiments
