#pragma once
// Several stored runs side by side: every configuration key (method, task, ε, seed, status and
// the keys of each run's stored configuration JSON) with a flag for the keys whose values
// differ, and every whole-task and per-class metric. Plain data, so the table and its test
// do not need a window.
#include "app/workbench/project/project_snapshot.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace dpmix::workbench {

struct ComparedParameter {
    QString key;
    QStringList values;  // one per run; "—" where the run has no such key
    bool differs = false;
};

struct ComparedMetric {
    QString name;                // "test-auc" or "auc (class c)"
    std::vector<double> values;  // one per run; NaN where the run has no such metric
};

struct RunComparison {
    std::vector<long long> runIds;
    QStringList runLabels;              // "#12 DP-MixMin · ac · ε = 1 · seed 0"
    std::optional<long long> baseline;  // the pinned baseline, when it is one of the runs
    std::vector<ComparedParameter> parameters;
    std::vector<ComparedMetric> metrics;
    QStringList curveNames;  // union of the runs' curve names, sorted

    /// The keys whose values differ between the runs.
    QStringList differingKeys() const;
};

/// Compares the runs with these ids (in this order; the pinned baseline is put first when it is
/// in `runIds`). An Error names an id the project does not have, or asks for two runs or more.
Result<RunComparison> compareRuns(const ProjectSnapshot& project, std::vector<long long> runIds);

}  // namespace dpmix::workbench
