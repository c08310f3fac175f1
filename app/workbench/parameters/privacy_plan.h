#pragma once
// What the parameter panel's live calculator shows: every field checked (through the engine's
// validating builders where one exists), the sizes of splits A and B, the noise multiplier σ
// the mixture stage will use, and the run's total (ε, δ). A pure function, so it runs on a
// worker thread while the user types.
#include "engine/core/result.h"
#include "widgets/parameter_panel.h"
#include "widgets/run_parameters.h"

#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace dpmix::workbench {

struct SplitSizes {
    long long a = 0;  // mixture learning (D_mix)
    long long b = 0;  // fine-tuning (D_ft)
};

/// n_A = round(ρ·n), n_B = n − n_A. Rounding to nearest reproduces the paper's Table 12
/// (n = 89,696: ρ = 0.05 / 0.1 / 0.2 → 4,485 / 8,970 / 17,939).
SplitSizes splitSizes(long long n, double rho);

/// The per-stage (ε, δ) target: the whole budget under parallel composition (the stages see
/// disjoint people), half of each under sequential composition (basic composition adds them).
struct StageBudget {
    double epsilon;
    double delta;
};
StageBudget stageBudget(double epsilon, double delta, widgets::CompositionMode mode);

/// Seeds typed as "0, 1, 2" (commas and/or spaces): whole numbers >= 0, no repeats.
Result<std::vector<long long>> parseSeeds(const QString& text);

struct MixtureStagePlan {
    double q = 0.0;  // B / n_A
    long long steps = 0;
    double sigma = 0.0;    // calibrated noise multiplier
    double epsilon = 0.0;  // ε at that σ (<= the stage target)
    double order = 0.0;
    StageBudget target{0.0, 0.0};
};

struct PrivacyPlan {
    QList<widgets::FieldMessage> messages;  // errors and warnings, in panel order
    bool valid = false;                     // no errors: a run may start
    std::optional<SplitSizes> split;
    std::optional<MixtureStagePlan> mixture;
    double totalEpsilon = 0.0;
    double totalDelta = 0.0;
    /// Why the runs that fine-tune (Compare with baselines, full-pipeline sweeps) cannot start with
    /// these values although mixture learning can (a fine-tuning batch larger than split B); empty: they can.
    QString downstreamProblem;

    bool hasError(widgets::ParameterField field) const;
};

PrivacyPlan planPrivacy(const widgets::RunParameters& parameters);

/// Rich text for the panel's "Privacy of this run" box, and the split line under ρ.
QString privacySummaryHtml(const PrivacyPlan& plan, const widgets::RunParameters& parameters);
QString splitSummaryText(const PrivacyPlan& plan);

}  // namespace dpmix::workbench
