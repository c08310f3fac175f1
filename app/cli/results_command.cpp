// `dpmix results PROJECT [--metric NAME] [--json]`: the study's results table recomputed from
// every finished downstream run stored in the project (project/result_summary.h): per ε and
// method, the mean over tasks within each seed, then mean ± sample std over seeds. Reads only.
#include "app/cli/command.h"
#include "app/cli/project_commands.h"
#include "app/cli/source_weights_table.h"
#include "app/cli/terminal_safe.h"
#include "engine/project/project_records.h"
#include "engine/project/result_summary.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace dpmix::cli {

namespace {

struct ResultsArgs {
    std::string projectPath;
    std::string metric;
    std::string methodFilter;
    bool json = false;
    bool sourceWeights = false;
};

void printResultsJson(const project::ProjectFile& project, const std::string& metric,
                      const std::vector<project::ResultObservation>& observations, const IntegrityVerdict& integrity,
                      const std::vector<project::ResultSummaryRow>& rows,
                      const std::vector<project::ResultObservation>& collapsed) {
    nlohmann::ordered_json out{{"project", project.path().string()},
                               {"metric", metric},
                               {"runs", observations.size()},
                               {"hash_chain_ok", integrity.ok},
                               {"integrity", integrity.line},
                               {"integrity_ok", integrity.ok},
                               {"integrity_problems", integrity.details},
                               {"summary", nlohmann::ordered_json::array()}};
    for (const auto& r : rows)
        out["summary"].push_back({{"method", r.method},
                                  {"epsilon", r.epsilon},
                                  {"mean", r.mean},
                                  {"std", r.std},
                                  {"seeds", r.seeds},
                                  {"tasks", r.tasks},
                                  {"every_seed_has_every_task", r.fewestTasksInASeed == r.tasks}});
    // Runs whose pretrained model collapsed (constant, saturated or non-finite on public images).
    out["collapsed_pretraining_runs"] = nlohmann::ordered_json::array();
    for (const auto& c : collapsed) out["collapsed_pretraining_runs"].push_back(c.runId);
    std::cout << out.dump(2) << '\n';
}

void printResultsTable(const project::ProjectFile& project, const std::string& metric,
                       const std::vector<project::ResultObservation>& observations, const IntegrityVerdict& integrity,
                       const std::vector<project::ResultSummaryRow>& rows) {
    std::cout << integrity.line << '\n';
    for (const auto& d : integrity.details) std::cout << "  " << oneLine(d) << '\n';
    std::cout << oneLine(metric) << " of " << observations.size() << " finished runs in "
              << oneLine(project.path().string())
              << "\n(mean over tasks within a seed, then mean ± sample std over seeds)\n";
    double lastEpsilon = -1.0;
    char line[512];
    for (const auto& r : rows) {  // through std::cout, whose filter escapes control characters
        if (r.epsilon != lastEpsilon) {
            std::snprintf(line, sizeof line, "eps %g\n", r.epsilon);
            std::cout << line;
        }
        lastEpsilon = r.epsilon;
        std::snprintf(line, sizeof line, "%.4f ± %.4f  (%d seed%s, %d task%s%s)\n", r.mean, r.std, r.seeds,
                      r.seeds == 1 ? "" : "s", r.tasks, r.tasks == 1 ? "" : "s",
                      r.fewestTasksInASeed < r.tasks ? "; INCOMPLETE: a seed lacks some tasks" : "");
        std::string method = oneLine(r.method);
        if (method.size() < 20) method.resize(20, ' ');
        std::cout << "  " << method << ' ' << line;
    }
    std::cout.flush();
}

// Runs whose pretrained model collapsed (the metric pretraining-collapsed; docs/RESULTS.md, "The
// collapsed pretraining"): their result measures a failed pretraining, not their λ.
void printCollapsedPretrainings(const std::vector<project::ResultObservation>& collapsed) {
    char line[512];
    for (const auto& c : collapsed) {  // through std::cout, whose filter escapes control characters
        std::snprintf(line, sizeof line, "warning: run %lld (%s, task '%s', eps %g, seed %lld): ", c.runId,
                      oneLine(c.method).c_str(), oneLine(c.task).c_str(), c.epsilon, c.seed);
        std::cout << line
                  << "its pretraining collapsed (constant, saturated or non-finite outputs on public images; "
                     "dpmix inspect shows its log): its result measures that failure, not its lambda\n";
    }
    std::cout.flush();
}

int printStoredSourceWeights(const project::ProjectFile& project) {
    auto rows = experiments::storedSourceWeights(project);
    if (!rows) {
        std::cerr << "dpmix results: " << oneLine(rows.error().message) << '\n';
        return 1;
    }
    if (rows->empty()) {
        std::cerr
            << "dpmix results: " << oneLine(project.path().string())
            << " has no finished DP-MixMin run with its lambda* to compare (dpmix run --stages proxies,mixture)\n";
        return 1;
    }
    printSourceWeightRows(project.path().filename().string(), *rows);
    return 0;
}

}  // namespace

void registerResultsCommand(CLI::App& app, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<ResultsArgs>();
    auto* cmd = app.add_subcommand(
        "results", "The results table (mean ± std over seeds) of the downstream runs stored in a project");
    cmd->add_option("project", args->projectPath, "a .dpmix project (a spec JSON opens the project next to it)")
        ->required();
    cmd->add_option("--metric", args->metric,
                    "the stored per-run metric to summarise (default: test-auc, or test-perplexity for a text study)");
    cmd->add_flag("--json", args->json, "print the table as one JSON object");
    cmd->add_flag("--source-weights", args->sourceWeights,
                  "instead: DP-MixMin's weight per public source against lambda*'s, per task and epsilon");
    cmd->callback([&ctx, args] {
        auto project = openProjectToRead(args->projectPath);
        if (!project) {
            std::cerr << "dpmix results: " << project.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        if (args->sourceWeights) {
            ctx.exitCode = printStoredSourceWeights(*project);
            return;
        }
        // The study's own metric by default: an image study is read by AUC, a text study by perplexity.
        auto sources = project->sources();
        if (!sources) {
            std::cerr << "dpmix results: " << sources.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        const bool textStudy = project::isTextStudy(*sources);
        const std::string studyMetric = textStudy ? "test-perplexity" : "test-auc";
        const std::string name = args->metric.empty() ? studyMetric : args->metric;
        auto observations = project::storedResults(*project, name);
        if (!observations) {
            std::cerr << "dpmix results: " << observations.error().message << '\n';
            ctx.exitCode = 1;
            return;
        }
        const auto integrity = checkIntegrity(*project);
        if (observations->empty()) {
            std::cerr << "dpmix results: " << project->path().string() << " has no finished run with the metric '"
                      << name << "' (";
            if (name != studyMetric)
                std::cerr << (textStudy ? "a text" : "an image") << " study's downstream runs store " << studyMetric
                          << "; ";
            std::cerr << "they are stored by dpmix run --stages ...,pretrain,finetune,evaluate)\n";
            // An altered file is said to be so even when there is no table to show.
            if (!integrity.ok) std::cerr << "dpmix results: " << oneLine(integrity.line) << '\n';
            ctx.exitCode = 1;
            return;
        }
        const auto rows = project::summarizeResults(*observations);
        auto collapsed = project::storedResults(*project, "pretraining-collapsed");
        if (!collapsed) {
            std::cerr << "dpmix results: " << collapsed.error().message << '\n';
            ctx.exitCode = 1;
            return;
        }
        if (args->json) {
            printResultsJson(*project, name, *observations, integrity, rows, *collapsed);
        } else {
            printResultsTable(*project, name, *observations, integrity, rows);
            printCollapsedPretrainings(*collapsed);
        }
        ctx.exitCode = integrity.ok ? 0 : 1;
    });
}

}  // namespace dpmix::cli
