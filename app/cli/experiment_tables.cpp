#include "app/cli/experiment_tables.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace dpmix::cli {

using nlohmann::ordered_json;

std::string valueText(double v) {
    if (std::isinf(v)) return "inf";
    std::ostringstream s;
    s << v;
    return s.str();
}

std::string perClassText(long long n) { return n == experiments::kAllPrivate ? "all" : std::to_string(n); }

// The k-scaling's table, or --json.
void printKScalingReport(const experiment_runs::KScalingStageReport& r, const std::string& projectPath, long long seeds,
                         bool json) {
    if (json) {
        ordered_json rows = ordered_json::array();
        for (std::size_t i = 0; i < r.ks.size(); ++i) {
            ordered_json perClass = ordered_json::object();
            for (std::size_t c = 0; c < r.classes.size(); ++c)
                perClass[r.classes[c]] = r.perClass[c].rows[i].meanExcess.mean;
            rows.push_back({{"k", r.ks[i]},
                            {"mean_excess", r.meanExcess[i]},
                            {"std_over_classes", r.stdOverClasses[i]},
                            {"max_gap", r.maxGap[i]},
                            {"per_class", perClass}});
        }
        ordered_json out{
            {"project", projectPath}, {"run_id", r.runId},    {"epsilon", r.epsilon}, {"split_a", r.splitA},
            {"seeds", seeds},         {"classes", r.classes}, {"rows", rows}};
        if (r.fitted)
            out["fit"] = {{"min_k", 32},
                          {"slope", r.fit.slope},
                          {"intercept", r.fit.intercept},
                          {"r_squared", r.fit.rSquared},
                          {"points", r.fit.points}};
        else
            out["fit_error"] = r.fitError;
        std::cout << out.dump(2) << '\n';
    } else {
        std::cout << "k-scaling (run " << r.runId << "): epsilon " << r.epsilon << ", split A " << r.splitA << ", "
                  << seeds << " seeds x " << r.classes.size() << " one-vs-rest class tasks\n"
                  << "       k   mean excess   std over classes   max FW gap of lambda*\n";
        for (std::size_t i = 0; i < r.ks.size(); ++i) {
            char line[128];
            std::snprintf(line, sizeof line, "%8lld   %11.3e   %11.3e        %9.1e\n", r.ks[i], r.meanExcess[i],
                          r.stdOverClasses[i], r.maxGap[i]);
            std::cout << line;
        }
        if (r.fitted)
            std::cout << "log-log slope for k >= 32: " << r.fit.slope << " (R^2 " << r.fit.rSquared << ", "
                      << r.fit.points << " points)\n";
        else
            std::cout << "no slope: " << r.fitError << '\n';
    }
}

namespace {

std::string meanStdText(const MeanStd& v, const char* format) {
    if (!std::isfinite(v.mean)) return "n/a";
    char a[64], b[64];
    std::snprintf(a, sizeof a, format, v.mean);
    std::snprintf(b, sizeof b, format, v.std);
    return std::string(a) + " ± " + b;
}

ordered_json meanStdJson(const MeanStd& v) {
    auto finite = [](double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); };
    return {{"mean", finite(v.mean)}, {"std", finite(v.std)}, {"count", v.count}};
}

// The AdaMix-R experiment as one JSON object (--json).
void printAdamixJson(const experiment_runs::AdamixExperimentReport& r, const std::string& projectPath) {
    const auto& g = r.grid;
    const auto& levels = experiments::epsilonQuantileLevels();
    ordered_json rows = ordered_json::array();
    for (const auto& row : r.result.summary)
        rows.push_back(
            {{"method", experiments::adamixMethodName(row.method)},
             {"label", experiments::adamixMethodLabel(row.method)},
             {"epsilon", row.epsilon ? ordered_json(*row.epsilon) : ordered_json(nullptr)},
             {"shots", row.shots},
             {"private_per_class", row.privatePerClass == experiments::kAllPrivate ? ordered_json("all")
                                                                                   : ordered_json(row.privatePerClass)},
             {"private_examples", row.privateExamples},
             {"test_error", meanStdJson(row.testError)},
             {"error_increase_percent", meanStdJson(row.errorIncrease)}});
    ordered_json eps = ordered_json::array();
    for (const auto& row : r.result.epsilonSummary) {
        ordered_json q = ordered_json::object();
        for (std::size_t i = 0; i < levels.size(); ++i) q[valueText(levels[i])] = meanStdJson(row.quantiles[i]);
        eps.push_back(
            {{"epsilon", row.epsilon},
             {"shots", row.shots},
             {"private_per_class", row.privatePerClass == experiments::kAllPrivate ? ordered_json("all")
                                                                                   : ordered_json(row.privatePerClass)},
             {"quantiles", q},
             {"fraction_below_half_epsilon", meanStdJson(row.fractionBelowHalf)},
             {"spearman_loss", meanStdJson(row.spearmanLoss)},
             {"spearman_isolation", meanStdJson(row.spearmanIsolation)}});
    }
    std::cout << ordered_json{{"project", projectPath},
                              {"run_id", r.runId},
                              {"private_source", r.setup.privateSource},
                              {"extractor_source", r.setup.extractorSource},
                              {"extractor_train_accuracy", r.setup.extractorTrainAccuracy},
                              {"shots_source",
                               r.setup.shotsSource.empty() ? ordered_json(nullptr) : ordered_json(r.setup.shotsSource)},
                              {"test_set", r.setup.testSet},
                              {"seeds", g.seeds},
                              {"delta", g.delta},
                              {"steps", g.steps},
                              {"wall_seconds", r.setup.wallSeconds},
                              {"rows", rows},
                              {"per_example_epsilon", eps}}
                     .dump(2)
              << '\n';
}

// The per-example ε_i quantiles by (ε, shots, private count), labelled as the estimate they are.
void printAdamixEpsilonTable(const experiment_runs::AdamixExperimentReport& r) {
    if (r.result.epsilonSummary.empty()) return;
    char line[256];
    std::cout << "\nAdaMix-R per-example epsilon_i (an ESTIMATE on the realised trajectory, not a guarantee; "
                 "mean over seeds)\n";
    std::snprintf(line, sizeof line, "  %5s %5s %6s  %7s %7s %7s %7s %7s %7s %7s  %8s  %13s  %13s\n", "eps", "shots",
                  "priv", "min", "5%", "25%", "50%", "75%", "95%", "max", "<eps/2", "rho(eps,loss)", "rho(eps,isol)");
    std::cout << line;
    for (const auto& row : r.result.epsilonSummary) {
        std::snprintf(
            line, sizeof line, "  %5s %5lld %6s  %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f  %8.3f  %13s  %13s\n",
            valueText(row.epsilon).c_str(), row.shots, perClassText(row.privatePerClass).c_str(), row.quantiles[0].mean,
            row.quantiles[1].mean, row.quantiles[2].mean, row.quantiles[3].mean, row.quantiles[4].mean,
            row.quantiles[5].mean, row.quantiles[6].mean, row.fractionBelowHalf.mean,
            meanStdText(row.spearmanLoss, "%.2f").c_str(), meanStdText(row.spearmanIsolation, "%.2f").c_str());
        std::cout << line;
    }
}

}  // namespace

void printAdamixReport(const experiment_runs::AdamixExperimentReport& r, const std::string& projectPath, bool json) {
    const auto& g = r.grid;
    if (json) return printAdamixJson(r, projectPath);
    std::cout << "AdaMix-R experiment (run " << r.runId << "): private task '" << r.setup.privateSource
              << "', extractor trained on '" << r.setup.extractorSource << "' (accuracy on its own images "
              << valueText(r.setup.extractorTrainAccuracy) << (r.setup.extractorReused ? ", reused" : "") << ")\n"
              << "shots "
              << (r.setup.shotsSource.empty() ? "drawn from the private pool and removed from it"
                                              : "from '" + r.setup.shotsSource + "'")
              << "; test set: " << r.setup.testSet << "\n"
              << g.seeds << " seeds; delta " << valueText(g.delta) << ", full batch, T = " << g.steps
              << "; test error and error increase over the paragon M0, mean ± std over seeds\n";
    char line[256];
    for (auto k : g.shots)
        for (auto n : g.privatePerClass) {
            double examples = 0.0;
            for (const auto& row : r.result.summary)
                if (row.shots == k && row.privatePerClass == n) examples = row.privateExamples;
            std::cout << "\nshots " << k << " per class, private " << perClassText(n)
                      << " per class (n = " << valueText(examples) << ")\n";
            std::snprintf(line, sizeof line, "  %-33s %6s   %-17s   %s\n", "method", "eps", "test error",
                          "error increase %");
            std::cout << line;
            for (const auto& row : r.result.summary) {
                if (row.shots != k || row.privatePerClass != n) continue;
                const std::string name = std::string(experiments::adamixMethodLabel(row.method)) + " " +
                                         experiments::adamixMethodName(row.method);
                std::snprintf(line, sizeof line, "  %-33s %6s   %-17s   %s\n", name.c_str(),
                              row.epsilon ? valueText(*row.epsilon).c_str() : "-",
                              meanStdText(row.testError, "%.4f").c_str(),
                              meanStdText(row.errorIncrease, "%.1f").c_str());
                std::cout << line;
            }
        }
    printAdamixEpsilonTable(r);
    std::cout << "wall time " << valueText(std::round(r.setup.wallSeconds)) << " s\n";
}

}  // namespace dpmix::cli
