#pragma once
// The workbench's view of the privacy budget (engine/project/project_budget.h): the meter's
// reading from the open project's snapshot, and the preview of what a run would spend, shown
// before it starts. The engine checks the cap again, exactly, before any mechanism runs.
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/runs/run_action.h"
#include "engine/privacy/privacy_budget.h"
#include "widgets/budget_meter.h"
#include "widgets/run_parameters.h"

#include <QString>

#include <optional>
#include <vector>

namespace dpmix::workbench {

/// What one ε protects, as the spec names it: "examples", or at user level the user column's
/// name in the plural ("patients" for a column "Patient"), else "users".
QString unitLabelOf(const project::ProjectSpec& spec);

/// The meter's reading, or the reason there is none: the data set's total (every project on it,
/// through the budget store) against the smallest of the store's, the spec's and `panelCap`.
Result<widgets::BudgetReading> budgetReadingOf(const ProjectSnapshot& snapshot,
                                               std::optional<double> panelCap = std::nullopt);

/// What "Run DP-MixMin" with these values would spend, before and after, against the cap. The
/// DP-MixMin releases (one per seed and task) are estimated from the panel's plan (split A as
/// round(ρ·n)); runs that also fine-tune spend more, which the engine adds and checks itself.
struct SpendPreview {
    QString dataset, unit;
    double before = 0.0, after = 0.0;
    std::optional<double> cap;
    long long releases = 0;  // planned DP releases counted in `after`
    QString why;             // why that many: "one DP-MixMin λ per sensitive task (2) and seed (3)"
    QString accountant;      // the accountant that calibrates and certifies each release ("PRV", "RDP")
    QString store;           // the budget store that holds the data set's total (empty: this file only)
    bool overCap = false;
    bool fineTuningNotShown = false;  // the run also fine-tunes: `after` is a lower bound
    bool exact = false;               // planned by the engine on the realised splits: what the run reserves
    // How long the run would take here, from a training step timed just now (empty: not estimated).
    QString duration;
};

/// "about 14 min" (seconds under a minute, hours and minutes over an hour) and how it was
/// measured, for the confirm dialog: a quick calibration of the step time, not a promise.
QString estimatedDurationText(double seconds, double stepMilliseconds, int batch);
Result<SpendPreview> previewSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& parameters,
                                  const PrivacyPlan& plan, bool alsoFineTunes);

/// What a run would spend, from the releases the engine planned for it on the project's data
/// (RunController::plannedReleases): exact — every release, fine-tuning included, as the run
/// reserves them when it starts. `why` says what they are.
Result<SpendPreview> previewPlannedSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& parameters,
                                         const std::vector<privacy::BudgetRelease>& planned);

/// What an ε sweep would spend: the DP-MixMin releases of every ε on the scope's tasks (each
/// planned as the panel plans one run at that ε); with the full pipeline, fine-tuning spends
/// more, which the engine adds.
Result<SpendPreview> previewSweepSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& parameters,
                                       const SweepScope& scope);

/// What "Generate private set (PSG)" with these settings would spend: PSG's release and, with the
/// references, the direct DP-SGD reference's, both on the whole training split (estimated as 80% of
/// the sensitive examples; the engine checks the cap exactly on the realised split).
Result<SpendPreview> previewPsgSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& parameters,
                                     const PsgSettings& settings);

/// The confirmation's text (rich text), and the refusal's when over the cap.
QString spendPreviewText(const SpendPreview& preview);

}  // namespace dpmix::workbench
