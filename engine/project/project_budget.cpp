#include "engine/project/project_budget.h"

#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dpmix::project {
namespace {

// The ρ split a run's A/B entries belong to: its seed and the ρ of its config. Unknown (no ρ,
// or sequential composition, which does not treat A and B as different people): none, so the
// entries count against everyone.
std::string partitionOf(const RunRecord& run, const privacy::Ledger& ledger) {
    if (ledger.composition() != privacy::Composition::Parallel) return {};
    const auto config = nlohmann::json::parse(run.configJson, nullptr, /*allow_exceptions=*/false);
    if (!config.is_object() || !config.contains("rho") || !config.at("rho").is_number()) return {};
    return privacy::rhoPartition(run.seed, config.at("rho").get<double>());
}

std::string labelOf(const RunRecord& run, const privacy::LedgerEntry& e) {
    std::string label = run.method + " run " + std::to_string(run.id);
    if (!run.task.empty()) label += " '" + run.task + "'";
    if (run.epsilon) label += " eps " + privacy::formatNumber(*run.epsilon);
    return label + " seed " + std::to_string(run.seed) + ", " + e.stage + " on split " + e.split;
}

}  // namespace

std::vector<const privacy::LedgerEntry*> carriedReleases(const privacy::Ledger& ledger,
                                                         const std::vector<RunLedgers>& runs) {
    std::vector<const privacy::LedgerEntry*> carried;
    for (const auto& e : ledger.entries()) {
        if (e.spentInRun <= 0) continue;
        const auto source = std::find_if(runs.begin(), runs.end(), [&](const RunLedgers& r) {
            return r.run.id == e.spentInRun && r.run.method != "audit" && !r.ledgers.empty();
        });
        if (source == runs.end()) continue;  // the run is not in this file (say, a release export)
        const auto there = privacy::ledgerFromJson(source->ledgers.back().ledgerJson);
        if (!there || !std::isfinite(there->total().epsilon)) continue;
        for (const auto& spent : there->entries())
            if (spent.spentInRun == 0 && privacy::sameRelease(spent, e)) {
                carried.push_back(&e);
                break;
            }
    }
    return carried;
}

std::vector<privacy::BudgetRelease> releasesOf(const RunRecord& run, const privacy::Ledger& ledger,
                                               const std::vector<RunLedgers>& runs) {
    std::vector<privacy::BudgetRelease> out;
    if (!std::isfinite(ledger.total().epsilon)) return out;
    const std::string partition = partitionOf(run, ledger);
    const auto carried = carriedReleases(ledger, runs);
    for (const auto& e : ledger.entries())
        if (std::find(carried.begin(), carried.end(), &e) == carried.end())
            out.push_back({run.id, labelOf(run, e), partition, e});
    return out;
}

Result<ProjectBudget> budgetOf(const ProjectSpec& spec, const std::vector<RunLedgers>& runs, const StoreView* store) {
    ProjectBudget b;
    b.cap = b.specCap = spec.privacy.budget;
    b.unit = spec.sensitive.userLevel ? "users" : "examples";
    for (const auto& [run, records] : runs) {
        if (records.empty()) continue;  // nothing touched the sensitive data (or not yet)
        auto ledger = privacy::ledgerFromJson(records.back().ledgerJson);
        if (!ledger)
            return Error{"run " + std::to_string(run.id) + ": its ledger cannot be read: " + ledger.error().message};
        if (ledger->entries().empty()) continue;
        if (run.method == "audit") {
            b.uncounted.push_back({run.id, run.method, "an audit: an experiment on the mechanism, not a release"});
            continue;
        }
        auto released = releasesOf(run, *ledger, runs);
        if (!std::isfinite(ledger->total().epsilon)) {
            b.uncounted.push_back(
                {run.id, run.method, "not private (epsilon = inf): computed for the analyst, never to be released"});
            continue;
        }
        b.releases.insert(b.releases.end(), released.begin(), released.end());
    }
    b.fileReleases = static_cast<long long>(b.releases.size());
    if (store) {
        // The data set's view: the store's charges, with this file's runs as the file says now.
        const ProjectCharges mine = projectCharges(store->projectKey, "", runs);
        CountedParts parts;
        b.releases = countedReleases(store->charges, &mine, &parts);
        b.storePath = store->location.path.string();
        b.storeSource = store->location.source;
        b.storeKnowsDataset = store->charges.known;
        b.storeCap = store->charges.cap;
        if (b.storeCap && (!b.cap || *b.storeCap < *b.cap)) b.cap = b.storeCap;
        b.reservations = store->charges.reservations;
        b.fileReleases = parts.fromProject;
        b.otherReleases = parts.fromStore;
    }
    b.total = privacy::composeBudget(b.releases);
    return b;
}

Result<std::vector<RunLedgers>> runLedgersOf(const ProjectFile& project) {
    auto runs = project.runs();
    if (!runs) return runs.error();
    std::vector<RunLedgers> all;
    for (const auto& run : *runs) {
        auto records = project.ledgers(run.id);
        if (!records) return records.error();
        all.push_back({run, std::move(records).value()});
    }
    return all;
}

Result<ProjectBudget> projectBudget(const ProjectFile& project) {
    auto runs = runLedgersOf(project);
    if (!runs) return runs.error();
    auto store = readStoreView(project);
    if (!store) return store.error();
    return budgetOf(project.spec(), *runs, &*store);
}

BudgetForecast forecastBudget(const ProjectBudget& current, const std::vector<privacy::BudgetRelease>& planned) {
    std::vector<privacy::BudgetRelease> all = current.releases;
    all.insert(all.end(), planned.begin(), planned.end());
    return {current.total.epsilon, privacy::composeBudget(all).epsilon, current.cap};
}

Status refuseOverBudget(const ProjectBudget& current, const std::vector<privacy::BudgetRelease>& planned) {
    if (!current.cap || planned.empty()) return std::nullopt;
    const BudgetForecast f = forecastBudget(current, planned);
    if (f.after <= *current.cap * (1.0 + 1e-12)) return std::nullopt;
    return Error{"privacy.budget = " + privacy::formatNumber(*current.cap) +
                 ": this run would bring the sensitive data's "
                 "total from epsilon " +
                 privacy::formatNumber(f.before) + " to " + privacy::formatNumber(f.after) + " (" +
                 std::to_string(planned.size()) + " DP release(s) on " + current.unit +
                 "), over the cap; nothing was run. Raise privacy.budget, or spend less (fewer epsilons, seeds or "
                 "tasks, or smaller epsilons)"};
}

namespace {

// How an open reservation counts, in words: a run in progress or killed, a cluster grid with the
// attempts its units started, or a unit's later attempt (docs/CLUSTER.md, "Secret runs").
std::string reservationState(const StoredReservation& r) {
    if (r.attempt)
        return "attempt " + std::to_string(r.attempt->attempt) + " of unit " + std::to_string(r.attempt->unit) +
               " of the cluster grid of reservation " + std::to_string(r.attempt->gridReservation) +
               (r.attempt->slurm.empty() ? std::string() : " (" + r.attempt->slurm + ")") + ", a release of its own: " +
               (r.attempt->kept ? "its job is merged, counted for good" : "counted in full, and for good once merged");
    const std::string grid =
        r.attemptsStarted > 0 ? "; its units started " + std::to_string(r.attemptsStarted) + " attempt(s)" : "";
    return (r.ownerLiveness == Liveness::Dead ? "its process ended without settling it: counted in full"
                                              : "in progress: counted in full until it settles") +
           grid;
}

}  // namespace

std::string describeBudget(const ProjectBudget& b) {
    auto fixed = [](double v) {
        if (std::isinf(v)) return std::string("inf");
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f", v);
        return std::string(buf);
    };
    std::string out = "privacy budget of the sensitive data (unit: " + b.unit + "): epsilon " + fixed(b.total.epsilon) +
                      " at delta " + privacy::formatNumber(b.total.delta > 0 ? b.total.delta : 0.0) + " over " +
                      std::to_string(b.total.releases) + " DP release(s)";
    out += b.cap ? ", cap " + privacy::formatNumber(*b.cap) + " (" + fixed(std::max(0.0, *b.cap - b.total.epsilon)) +
                       " left)\n"
                 : ", no cap (set one with `dpmix budget PROJECT --cap EPS`, the workbench's privacy settings, or "
                   "privacy.budget in the spec)\n";
    if (b.cap)
        out += std::string("  cap from ") +
               (b.storeCap && b.specCap
                    ? "the budget store (" + privacy::formatNumber(*b.storeCap) + ") and privacy.budget (" +
                          privacy::formatNumber(*b.specCap) + "): the smaller"
                : b.storeCap ? std::string("the budget store")
                             : std::string("privacy.budget of the spec")) +
               "\n";
    if (!b.storePath.empty()) {
        out += "  shared with every project on this data set through the budget store " + b.storePath + " (" +
               b.storeSource + "): " + std::to_string(b.fileReleases) + " release(s) from this file, " +
               std::to_string(b.otherReleases) + " from other project files (or runs no longer in this file)\n";
        if (!b.storeKnowsDataset)
            out +=
                "  warning: this store has no record of this data set yet: spending on it recorded elsewhere (another "
                "store, user or machine, or a copy of the data under another content) is not seen here\n";
        for (const auto& r : b.reservations)
            out += "  reservation " + std::to_string(r.id) + " (" + r.what + ", " + std::to_string(r.planned.size()) +
                   " planned release(s), " + r.projectPath + "): " + reservationState(r) + "\n";
    }
    out +=
        "  composed by the RDP accountant (and, when every release is certified by PRV, also by PRV, keeping the "
        "smaller): releases on one part add, the two sides of a rho split cost their larger, different rho splits "
        "and the whole training set add\n";
    for (const auto& g : b.total.groups)
        out += "  " + (g.partition.empty() ? std::string("whole set") : g.partition) + ", split " + g.split + ": " +
               std::to_string(g.releases) + " release(s), epsilon " + fixed(g.epsilon) + " alone\n";
    if (b.total.seeded)
        out += "  includes seeded (reproducible) runs: their results can be regenerated and are no release\n";
    if (!b.total.established)
        out += "  includes a mechanism whose guarantee is only claimed by its authors (Dirichlet)\n";
    if (!b.uncounted.empty()) {
        out += "  not counted (" + std::to_string(b.uncounted.size()) + " run(s) that are no DP release):\n";
        for (const auto& u : b.uncounted)
            out += "    run " + std::to_string(u.runId) + " " + u.method + ": " + u.why + "\n";
    }
    out += "  test-set metrics are computed for the analyst on held-out data and carry no ledger: not counted\n";
    return out;
}

}  // namespace dpmix::project
