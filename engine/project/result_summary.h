#pragma once
// The results table of a study, from what its project file stores: one downstream metric per
// run (test AUC per task for image studies, test perplexity for text studies), summarised per
// (ε, method) as the paper reports it — mean over the tasks within each seed (macro), then
// mean ± sample standard deviation over seeds. `dpmix run` prints it for the runs it made;
// `dpmix results` for every finished run in a project, so a reviewer can recompute the table.
#include "engine/core/result.h"
#include "engine/project/project_file.h"

#include <string>
#include <vector>

namespace dpmix::project {

struct ResultObservation {
    std::string method, task;
    long long seed = 0;
    double epsilon = 0.0;
    double value = 0.0;
    long long runId = 0;
};

struct ResultSummaryRow {
    std::string method;
    double epsilon = 0.0;
    double mean = 0.0, std = 0.0;  // over seeds of the per-seed mean over tasks; std 0 for one seed
    int seeds = 0;
    int tasks = 0;               // distinct tasks seen for this (ε, method)
    int fewestTasksInASeed = 0;  // < tasks: some seed lacks a task, so its macro mean is over fewer
};

/// Rows ordered by ε, then by first appearance of the method. Several observations of one
/// (ε, method, seed, task) — a re-run — are averaged first, so every seed counts once.
std::vector<ResultSummaryRow> summarizeResults(const std::vector<ResultObservation>& observations);

/// Every finished run (status done, an ε) with a metric `metric` whose class name is its task
/// or empty, e.g. "test-auc" or "test-perplexity".
Result<std::vector<ResultObservation>> storedResults(const ProjectFile& project, const std::string& metric);

}  // namespace dpmix::project
