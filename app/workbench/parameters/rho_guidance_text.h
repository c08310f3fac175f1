#pragma once
// The panel's ρ guidance, live: how large split A must be before the privacy noise stops
// dominating λ's error, for this ε, δ and number of mixture components k (the balance point of
// the excess-risk bound, engine/experiments/rho_guidance.h; docs/RHO_GUIDANCE.md), and where the
// chosen ρ stands against it. A pure function: it runs on the panel's worker thread.
#include "widgets/run_parameters.h"

#include <QString>

namespace dpmix::workbench {

/// Rich text for the line under ρ; empty when it cannot be computed (fewer than two components,
/// or ε, δ, n or ρ not valid — their own messages say why).
QString rhoGuidanceHtml(const widgets::RunParameters& parameters, long long components);

}  // namespace dpmix::workbench
