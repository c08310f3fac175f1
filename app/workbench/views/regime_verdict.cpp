#include "app/workbench/views/regime_verdict.h"

#include "engine/experiments/regime_advice.h"
#include "engine/experiments/regime_map.h"
#include "engine/methods/method_plan.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace dpmix::workbench {

std::vector<project::ResultObservation> storedTestAuc(const ProjectSnapshot& project) {
    return storedResultsOf(project, "test-auc");
}

namespace {

// DP-MixMin's cell against one baseline, from their observations only: a seed or task that another
// method lacks must not narrow this pair (regimeCellsOf averages each seed over the tasks every
// method it is given holds, and drops a seed some method lacks).
std::optional<experiments::RegimeCell> pairCell(const std::vector<project::ResultObservation>& observations,
                                                const ProjectSnapshot& project, methods::Method baseline) {
    std::vector<project::ResultObservation> pair;
    for (const auto& o : observations)
        if (o.method == methods::nameOf(methods::Method::DpMixMin) || o.method == methods::nameOf(baseline))
            pair.push_back(o);
    // Pool, kind and n label a map's cell; the verdict reads only the paired differences.
    auto cells = experiments::regimeCellsOf(pair, project.spec.name,
                                            experiments::poolKindOf(project.spec.publicSources.size()), 0);
    if (cells.empty()) return std::nullopt;
    return std::move(cells.front());
}

}  // namespace

QString baselineVerdictAt(const ProjectSnapshot& project, double epsilon) {
    std::vector<project::ResultObservation> atEpsilon;
    for (auto& o : storedTestAuc(project))
        if (std::abs(o.epsilon - epsilon) <= 1e-12 * std::max(1.0, epsilon)) atEpsilon.push_back(std::move(o));
    const auto randomInit = pairCell(atEpsilon, project, methods::Method::RandomInit);
    const auto uniform = pairCell(atEpsilon, project, methods::Method::Uniform);
    if (!randomInit || !uniform) return {};  // no DP-MixMin result at ε (or none at all)
    experiments::RegimeCell cell = *randomInit;
    cell.vsUniform = uniform->vsUniform;
    if (!cell.methods.count(methods::nameOf(methods::Method::DpMixMin))) return {};
    if (cell.vsRandomInit.seeds == 0 && cell.vsUniform.seeds == 0) return {};
    return QString::fromStdString(experiments::baselineVerdict(cell));
}

}  // namespace dpmix::workbench
