#include "engine/experiments/source_weights.h"

#include "engine/methods/method_plan.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace dpmix::experiments {
namespace {

constexpr std::string_view kSeparator = " / ";

std::string sourceOf(const std::string& component) {
    const auto at = component.find(kSeparator);
    return at == std::string::npos ? "the public source" : component.substr(0, at);
}

struct SeedWeights {
    std::vector<std::pair<std::string, double>> dp, star;
};

double weightOf(const std::vector<std::pair<std::string, double>>& weights, const std::string& source) {
    for (const auto& [name, w] : weights)
        if (name == source) return w;
    return 0.0;
}

SourceWeightRow rowOf(const std::string& task, double epsilon, const std::vector<SeedWeights>& seeds,
                      double neglectBelow) {
    SourceWeightRow row;
    row.task = task;
    row.epsilon = epsilon;
    row.seeds = static_cast<int>(seeds.size());
    for (const auto& [name, w] : seeds.front().star) row.sources.push_back(name);
    row.dp.assign(row.sources.size(), 0.0);
    row.star.assign(row.sources.size(), 0.0);
    std::set<std::string> everySeed(row.sources.begin(), row.sources.end());
    for (const auto& s : seeds) {
        double onNeglected = 0.0;
        std::set<std::string> neglected;
        for (std::size_t i = 0; i < row.sources.size(); ++i) {
            const double star = weightOf(s.star, row.sources[i]), dp = weightOf(s.dp, row.sources[i]);
            row.dp[i] += dp / row.seeds;
            row.star[i] += star / row.seeds;
            if (star < neglectBelow) {
                onNeglected += dp;
                neglected.insert(row.sources[i]);
            }
        }
        row.dpOnNeglectedMean += onNeglected / row.seeds;
        row.dpOnNeglectedMax = std::max(row.dpOnNeglectedMax, onNeglected);
        std::erase_if(everySeed, [&](const std::string& name) { return !neglected.count(name); });
    }
    for (const auto& name : row.sources)
        if (everySeed.count(name)) row.neglectedEverySeed.push_back(name);
    return row;
}

}  // namespace

std::vector<std::pair<std::string, double>> weightBySource(const std::vector<std::string>& components,
                                                           const std::vector<double>& lambda) {
    std::vector<std::pair<std::string, double>> out;
    for (std::size_t c = 0; c < components.size() && c < lambda.size(); ++c) {
        const std::string source = sourceOf(components[c]);
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& entry) { return entry.first == source; });
        if (it == out.end())
            out.emplace_back(source, lambda[c]);
        else
            it->second += lambda[c];
    }
    return out;
}

Result<std::vector<SourceWeightRow>> storedSourceWeights(const project::ProjectFile& project, double neglectBelow) {
    auto runs = project.runs();
    if (!runs) return runs.error();
    const std::string privateKind(methods::traitsOf(methods::Method::DpMixMin).lambdaKind);
    const std::string starKind(methods::traitsOf(methods::Method::NonPrivateMixMin).lambdaKind);
    // λ_DP per (task, ε, seed); λ* per (task, seed): a mixture-only run stores both on the DP-MixMin
    // run, a downstream run stores λ* on the non-private MixMin run of the same (task, ε, seed). λ*
    // does not depend on ε (it is computed on split A without noise). A re-run replaces.
    std::map<std::tuple<std::string, double, long long>, std::vector<std::pair<std::string, double>>> dp;
    std::map<std::pair<std::string, long long>, std::vector<std::pair<std::string, double>>> star;
    for (const auto& run : *runs) {
        if (run.status != project::RunStatus::Done || !run.epsilon) continue;
        auto lambdas = project.lambdas(run.id);
        if (!lambdas) return lambdas.error();
        for (const auto& l : *lambdas) {
            if (l.kind == privateKind && run.method == methods::nameOf(methods::Method::DpMixMin))
                dp[{run.task, *run.epsilon, run.seed}] = weightBySource(l.names, l.values);
            if (l.kind == starKind) star[{run.task, run.seed}] = weightBySource(l.names, l.values);
        }
    }
    std::map<std::pair<std::string, double>, std::vector<SeedWeights>> grouped;
    for (const auto& [key, weights] : dp) {
        const auto& [task, epsilon, seed] = key;
        const auto reference = star.find({task, seed});
        if (reference != star.end()) grouped[{task, epsilon}].push_back({weights, reference->second});
    }
    std::vector<SourceWeightRow> rows;
    for (const auto& [key, seeds] : grouped) rows.push_back(rowOf(key.first, key.second, seeds, neglectBelow));
    return rows;
}

}  // namespace dpmix::experiments
