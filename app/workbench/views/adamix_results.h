#pragma once
// The AdaMix-R views' data from a project's stored "adamix-experiment" runs
// (engine/experiments/adamix_records.h). The snapshot reads the cells of every experiment; the
// per-example records (the bulk of a run: one row per private example and AdaMix-R run) are read
// only when the "who pays" view first shows that experiment.
#include "app/workbench/views/adamix_data.h"
#include "engine/experiments/adamix_records.h"

#include <QString>

#include <functional>
#include <vector>

namespace dpmix::workbench {

/// The cells of a stored experiment, and one estimates entry (without its examples) per AdaMix-R
/// cell that stored per-example records; `examplesLoaded` follows `stored` having read them.
AdamixExperiment adamixExperimentFrom(const experiments::StoredAdamixExperiment& stored);

/// Fills `experiment`'s estimates with their examples; returns an empty string, or why not.
using AdamixEstimatesLoader = std::function<QString(AdamixExperiment& experiment)>;

/// Reads the per-example records from the project file at `path` (opened read-only, then closed).
AdamixEstimatesLoader projectEstimatesLoader(const QString& path);

}  // namespace dpmix::workbench
