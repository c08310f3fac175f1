#pragma once
// From what the user chose (panel values, a dialog, a stored run) to the request the engine
// runner gets, for each Run-menu action. Pure functions: the tests check them without a window.
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/run_action.h"

#include <QString>

#include <optional>
#include <vector>

namespace dpmix::workbench {

/// The five methods "Compare with baselines" runs through pretrain → finetune → evaluate.
const std::vector<std::string>& comparisonMethods();

/// Compare with baselines: the panel's study with the downstream stages for all five methods.
Result<StudyRequest> compareRequestFor(const widgets::RunParameters& parameters);

/// "0.5, 1, 2" (commas and/or spaces): at least two finite ε > 0, no repeats; returned sorted.
/// The Error names the field ("ε values") and the offending text.
Result<std::vector<double>> parseEpsilonList(const QString& text);

/// ε sweep: the panel's study at each ε of `scope`, on its tasks; the mixture stage only, or the
/// full pipeline for its methods. The Error names the field (ε values, tasks, methods).
Result<StudyRequest> sweepRequestFor(const widgets::RunParameters& parameters, const SweepScope& scope);

/// Audit: the dialog's choices with the panel's ε as the claimed ε (none for the no-noise
/// control). The Error names the field (task, runs, seed).
Result<AuditRequest> auditRequestFor(const widgets::RunParameters& parameters, const AuditSettings& settings);

/// A stored run repeated: exactly one of `study` / `audit` is set.
struct RerunPlan {
    std::optional<StudyRequest> study;
    std::optional<AuditRequest> audit;
    QString description;  // for the jobs dock
};

/// The request that repeats `run` with its stored configuration (method, task, ε, ρ, mixture
/// values, step counts), on `newSeed` if given. Proxy runs and the experiments (sweeps,
/// k-scaling) are refused with a message saying why and what to do instead.
Result<RerunPlan> rerunPlanFor(const project::RunRecord& run, std::optional<long long> newSeed);

}  // namespace dpmix::workbench
