#include "engine/project/ledger_checks.h"

#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"

#include <cmath>
#include <set>

namespace dpmix::project {
namespace {

// Runs whose ledgers describe an experiment on the mechanism, at parameters of their own.
const std::set<std::string> kExperimentMethods = {"audit", "epsilon-sweep", "rho-sweep", "k-scaling",
                                                  "adamix-experiment"};
constexpr double kTolerance = 1e-6;  // relative, as `dpmix inspect` always compared

bool close(double a, double b) {
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::fabs(a - b) <= kTolerance * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

std::string show(double v) { return std::isinf(v) ? "inf" : privacy::formatNumber(v); }

// A figure the run reported in its metrics (σ, ε spent) must be one its ledger holds.
void checkReported(const std::string& prefix, const std::vector<MetricRecord>& metrics, const privacy::Ledger& ledger,
                   const privacy::LedgerTotal& total, std::vector<std::string>& problems) {
    for (const auto& m : metrics) {
        if (!m.className.empty() || !std::isfinite(m.value)) continue;
        bool found = false;
        if (m.name == "sigma") {
            bool anyGaussian = false;
            for (const auto& e : ledger.entries())
                if (e.mechanism == privacy::MechanismKind::SubsampledGaussian) {
                    anyGaussian = true;
                    found = found || close(e.sigma, m.value);
                }
            if (!anyGaussian) continue;
            if (!found)
                problems.push_back(prefix + "it reported noise multiplier sigma " + show(m.value) +
                                   ", but no entry of its ledger has that sigma (the ledger or the metric was edited)");
        } else if (m.name == "epsilon-spent") {
            found = close(total.epsilon, m.value);
            for (const auto& e : ledger.entries()) found = found || close(e.epsilon, m.value);
            for (const auto& s : total.perSplit) found = found || close(s.epsilon, m.value);
            if (!found)
                problems.push_back(prefix + "it reported epsilon spent " + show(m.value) +
                                   ", but its ledger recomputes to " + show(total.epsilon) +
                                   " (the ledger or the metric was edited)");
        }
    }
}

}  // namespace

Result<std::vector<std::string>> checkLedgers(const ProjectFile& project) {
    std::vector<std::string> problems;
    auto runs = project.runs();
    if (!runs) return runs.error();
    const double specDelta = project.spec().privacy.delta;
    for (const auto& run : *runs) {
        auto records = project.ledgers(run.id);
        if (!records) return records.error();
        if (records->empty()) continue;
        auto metrics = project.metrics(run.id);
        if (!metrics) return metrics.error();
        const bool experiment = kExperimentMethods.count(run.method) > 0;
        for (std::size_t i = 0; i < records->size(); ++i) {
            const LedgerRecord& record = (*records)[i];
            const std::string prefix = "run " + std::to_string(run.id) + " ledger " + std::to_string(i + 1) + ": ";
            auto ledger = privacy::ledgerFromJson(record.ledgerJson);
            if (!ledger) {
                problems.push_back(prefix + "cannot be read: " + ledger.error().message);
                continue;
            }
            const auto verification =
                ledger->verify(std::isnan(record.recordedEpsilon) ? -1.0 : record.recordedEpsilon, kTolerance);
            for (const auto& p : verification.problems) problems.push_back(prefix + p);
            if (!verification.ok && verification.problems.empty())
                problems.push_back(prefix +
                                   "its recorded epsilon does not match the one recomputed from its parameters");
            if (experiment) continue;
            for (const auto& e : ledger->entries())
                if (e.mechanism != privacy::MechanismKind::NonPrivate && e.delta > specDelta * (1.0 + kTolerance))
                    problems.push_back(prefix + "its " + e.stage + " entry is accounted at delta " + show(e.delta) +
                                       ", above the spec's delta " + show(specDelta));
            // Only the last ledger is the run's (earlier ones are plans stored before training).
            if (i + 1 == records->size()) checkReported(prefix, *metrics, *ledger, verification.total, problems);
        }
    }
    return problems;
}

}  // namespace dpmix::project
