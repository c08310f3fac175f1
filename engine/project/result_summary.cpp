#include "engine/project/result_summary.h"

#include "engine/core/mean_std.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace dpmix::project {

std::vector<ResultSummaryRow> summarizeResults(const std::vector<ResultObservation>& observations) {
    using Key = std::pair<double, std::string>;  // (ε, method)
    std::vector<Key> order;
    // (ε, method) → seed → task → values
    std::map<Key, std::map<long long, std::map<std::string, std::vector<double>>>> grouped;
    for (const auto& o : observations) {
        const Key key{o.epsilon, o.method};
        if (!grouped.count(key)) order.push_back(key);
        grouped[key][o.seed][o.task].push_back(o.value);
    }
    std::stable_sort(order.begin(), order.end(), [](const Key& a, const Key& b) { return a.first < b.first; });

    auto mean = [](const std::vector<double>& v) {
        double s = 0.0;
        for (double x : v) s += x;
        return s / static_cast<double>(v.size());
    };
    std::vector<ResultSummaryRow> rows;
    for (const auto& key : order) {
        std::vector<double> perSeed;
        std::map<std::string, int> tasks;
        int fewest = -1;
        for (const auto& [seed, byTask] : grouped[key]) {
            std::vector<double> taskMeans;
            for (const auto& [task, values] : byTask) {
                taskMeans.push_back(mean(values));
                tasks[task] = 1;
            }
            perSeed.push_back(mean(taskMeans));
            const int n = static_cast<int>(taskMeans.size());
            fewest = fewest < 0 ? n : std::min(fewest, n);
        }
        const MeanStd overSeeds = meanStd(perSeed);
        rows.push_back({key.second, key.first, overSeeds.mean, overSeeds.std, static_cast<int>(perSeed.size()),
                        static_cast<int>(tasks.size()), fewest});
    }
    return rows;
}

Result<std::vector<ResultObservation>> storedResults(const ProjectFile& project, const std::string& metric) {
    auto runs = project.runs();
    if (!runs) return runs.error();
    std::vector<ResultObservation> out;
    for (const auto& run : *runs) {
        if (run.status != RunStatus::Done || !run.epsilon) continue;
        auto metrics = project.metrics(run.id);
        if (!metrics) return metrics.error();
        for (const auto& m : *metrics)
            if (m.name == metric && (m.className.empty() || m.className == run.task)) {
                out.push_back({run.method, run.task, run.seed, *run.epsilon, m.value, run.id});
                break;
            }
    }
    return out;
}

}  // namespace dpmix::project
