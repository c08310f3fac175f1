#pragma once
// The fields the result views give their charts' rows for Export CSV (tidy: one observation per
// row, columns task, epsilon, method, component, metric, value, …): one spelling of each cell
// for every view. An ε cell is honest: a λ chosen without DP is "inf", never the ε its
// fine-tuning spent.
#include "app/workbench/project/project_snapshot.h"
#include "engine/methods/method_plan.h"
#include "widgets/tidy_table.h"

#include <optional>
#include <string>

namespace dpmix::workbench {

/// The task cell: the task's name ("" for a study with a single, unnamed task).
QString taskCell(const std::string& task);

/// A number in full precision ("" for none).
QString numberCell(std::optional<double> value);

/// The ε of a run as a whole: "inf" when its mixture was chosen without DP (non-private MixMin,
/// random search), else its ε ("" when it has none).
QString runEpsilonCell(const std::string& method, std::optional<double> epsilon);

/// The ε of a λ: `epsilon` for the private λ, "0" for a choice that reads no sensitive data
/// (uniform), "inf" for a choice made on sensitive data without DP (λ*, random search).
QString lambdaEpsilonCell(methods::Choice choice, double epsilon);

/// run (id), task, epsilon (runEpsilonCell), method (stored name), seed.
widgets::TidyFields runFields(const project::RunRecord& run);

}  // namespace dpmix::workbench
