#include "engine/experiments/regime_grid.h"

#include "engine/core/joined_list.h"
#include "engine/project/spec_json.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace dpmix::experiments {

Status checkRegimeGrid(const RegimeGrid& grid) {
    if (grid.sizes.empty()) return Error{"--sizes: give at least one sensitive set size (0 = all)"};
    std::set<long long> sizes;
    for (const long long n : grid.sizes) {
        if (n < 0)
            return Error{"--sizes: " + std::to_string(n) + " is negative; expected a count of examples, or 0 for all"};
        if (!sizes.insert(n).second) return Error{"--sizes: " + std::to_string(n) + " is given twice"};
    }
    if (grid.epsilons.empty()) return Error{"--epsilons: give at least one ε"};
    std::set<double> epsilons;
    for (const double e : grid.epsilons) {
        if (!(e >= project::kMinEpsilon && e <= project::kMaxEpsilon))
            return Error{"--epsilons: " + std::to_string(e) + " is out of range; expected a finite ε > 0"};
        if (!epsilons.insert(e).second) return Error{"--epsilons: " + std::to_string(e) + " is given twice"};
    }
    if (grid.seeds.empty()) return Error{"--seeds: give at least one seed"};
    if (std::set<std::uint64_t>(grid.seeds.begin(), grid.seeds.end()).size() != grid.seeds.size())
        return Error{"--seeds: a seed is given twice"};
    if (grid.model && !project::isDownstreamModel(*grid.model))
        return Error{"--model: " + *grid.model + " is not a downstream model; expected " +
                     core::joinedList(project::kDownstreamModels, " or ")};
    if (grid.resnetWidth && !project::isResnetWidth(*grid.resnetWidth))
        return Error{"--resnet-width: " + std::to_string(*grid.resnetWidth) + " is out of range; expected " +
                     project::kResnetWidthRule};
    return std::nullopt;
}

std::string regimeStudyName(const std::string& pool, long long n, const std::string& otherModel) {
    return pool + (n > 0 ? "-n" + std::to_string(n) : "-all") + (otherModel.empty() ? "" : "-" + otherModel);
}

Result<project::ProjectSpec> regimeStudySpec(const project::ProjectSpec& pool, long long n,
                                             const std::optional<std::string>& model,
                                             std::optional<long long> resnetWidth) {
    project::ProjectSpec spec = pool;
    if (pool.sensitive.written.options.count("limit"))
        return Error{"spec '" + pool.name +
                     "': sensitive.options.limit is set; the regime map sets the sensitive set "
                     "size itself (--sizes): remove it from the pool's spec"};
    if (model) spec.finetune.model = *model;
    if (resnetWidth) {
        if (spec.finetune.model != "resnet18")
            return Error{"--resnet-width: the model is " + spec.finetune.model + "; a width needs --model resnet18"};
        spec.finetune.resnetWidth = *resnetWidth;
    }
    if (spec.finetune.model != "resnet18") spec.finetune.resnetWidth = project::kDefaultResnetWidth;
    std::string otherModel;
    if (spec.finetune.model != pool.finetune.model || spec.finetune.resnetWidth != pool.finetune.resnetWidth) {
        otherModel = spec.finetune.model;
        if (spec.finetune.resnetWidth != project::kDefaultResnetWidth)
            otherModel += "-w" + std::to_string(spec.finetune.resnetWidth);
    }
    spec.name = regimeStudyName(pool.name, n, otherModel);
    // The study's spec is written into the map's folder, not the pool's: its sources keep the
    // pool's resolved (absolute) paths so it reads the same files.
    for (auto* source : std::vector<project::SpecSource*>{&spec.sensitive})
        if (!source->resolved.path.empty()) source->written = source->resolved;
    for (auto& source : spec.publicSources)
        if (!source.resolved.path.empty()) source.written = source.resolved;
    if (n > 0) {
        spec.sensitive.written.options["limit"] = std::to_string(n);
        spec.sensitive.resolved.options["limit"] = std::to_string(n);
        const double wellBelow = std::pow(10.0, std::floor(std::log10(1.0 / (10.0 * static_cast<double>(n)))));
        spec.privacy.delta = std::min(spec.privacy.delta, wellBelow);
        spec.description = "The study '" + pool.name + "' on the first " + std::to_string(n) +
                           " sensitive examples (regime map). " + pool.description;
    }
    return spec;
}

}  // namespace dpmix::experiments
