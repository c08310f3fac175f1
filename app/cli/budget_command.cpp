// `dpmix budget PROJECT [--json] [--cap EPS|none]`: what every DP release of every project on the
// sensitive data set has spent on it together (project/project_budget.h: this file's runs and the
// budget store's charges), against its cap. Reads only the project; --cap sets the data set's cap
// in the budget store (the data owner's decision, shared by every project on the data).
#include "app/cli/command.h"
#include "app/cli/project_commands.h"
#include "app/cli/terminal_safe.h"
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/project/project_budget.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <memory>

namespace dpmix::cli {
namespace {

nlohmann::ordered_json number(double v) {
    return std::isinf(v) ? nlohmann::ordered_json("inf") : nlohmann::ordered_json(v);
}

nlohmann::ordered_json budgetJson(const project::ProjectFile& project, const project::ProjectBudget& b) {
    nlohmann::ordered_json out{
        {"project", project.path().string()},
        {"unit", b.unit},
        {"epsilon", number(b.total.epsilon)},
        {"delta", b.total.delta},
        {"releases", b.total.releases},
        {"cap", b.cap ? nlohmann::ordered_json(*b.cap) : nlohmann::ordered_json(nullptr)},
        {"store_cap", b.storeCap ? nlohmann::ordered_json(*b.storeCap) : nlohmann::ordered_json(nullptr)},
        {"spec_cap", b.specCap ? nlohmann::ordered_json(*b.specCap) : nlohmann::ordered_json(nullptr)},
        {"budget_store", b.storePath},
        {"budget_store_from", b.storeSource},
        {"store_knows_dataset", b.storeKnowsDataset},
        {"releases_from_this_file", b.fileReleases},
        {"releases_from_other_files", b.otherReleases},
        {"open_reservations", nlohmann::ordered_json::array()},
        {"seeded", b.total.seeded},
        {"established", b.total.established},
        {"parts", nlohmann::ordered_json::array()},
        {"counted", nlohmann::ordered_json::array()},
        {"not_counted", nlohmann::ordered_json::array()}};
    for (const auto& g : b.total.groups)
        out["parts"].push_back({{"partition", g.partition.empty() ? "whole set" : g.partition},
                                {"split", g.split},
                                {"releases", g.releases},
                                {"epsilon", number(g.epsilon)}});
    for (const auto& r : b.releases)
        out["counted"].push_back({{"run_id", r.runId}, {"what", r.label}, {"epsilon", number(r.entry.epsilon)}});
    for (const auto& u : b.uncounted)
        out["not_counted"].push_back({{"run_id", u.runId}, {"method", u.method}, {"why", u.why}});
    for (const auto& r : b.reservations) {
        nlohmann::ordered_json reservation{{"id", r.id},
                                           {"what", r.what},
                                           {"project", r.projectPath},
                                           {"planned_releases", r.planned.size()},
                                           {"process_ended", r.ownerLiveness == project::Liveness::Dead},
                                           {"attempts_started", r.attemptsStarted}};
        if (r.attempt)  // a cluster unit's later attempt: a release of its own (docs/CLUSTER.md)
            reservation["attempt"] = {{"grid_reservation", r.attempt->gridReservation},
                                      {"unit", r.attempt->unit},
                                      {"attempt", r.attempt->attempt},
                                      {"slurm", r.attempt->slurm},
                                      {"kept", r.attempt->kept}};
        out["open_reservations"].push_back(reservation);
    }
    return out;
}

// "2.5" → 2.5, "none" → no cap; anything else is refused with what is expected.
Result<std::optional<double>> parseCap(const std::string& text) {
    if (text == "none") return std::optional<double>();
    std::size_t used = 0;
    double cap = 0.0;
    try {
        cap = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || !(cap > 0.0 && cap <= 1e6))
        return Error{"--cap: \"" + text +
                     "\" is not allowed: expected the data set's total epsilon, a number in (0, 1e6], "
                     "or none to remove the cap"};
    return std::optional<double>(cap);
}

// Sets the data set's cap in the project's budget store; nothing else is written.
Status setStoreCap(const project::ProjectFile& project, std::optional<double> cap) {
    auto location = project::budgetStoreLocation(project.spec(), project.path());
    if (!location) return location.error();
    auto dataset = project::datasetKeyOf(project);
    if (!dataset) return dataset.error();
    auto opened = project::BudgetStore::open(location->path);
    if (!opened) return opened.error();
    project::BudgetStore store = std::move(opened).value();
    return store.setCap(*dataset, cap);
}

struct BudgetArgs {
    std::string projectPath;
    bool json = false;
    std::string cap;
};

int printBudget(const project::ProjectFile& project, bool json) {
    auto budget = project::projectBudget(project);
    if (!budget) {
        std::cerr << "dpmix budget: " << budget.error().message << '\n';
        return 1;
    }
    const auto integrity = checkIntegrity(project);
    // What the stored audits say of the claims behind it (docs/AUDIT.md, "Verdicts").
    auto verdicts = audit_runs::projectClaimVerdicts(project);
    if (!verdicts) {
        std::cerr << "dpmix budget: " << verdicts.error().message << '\n';
        return 1;
    }
    if (json) {
        auto out = budgetJson(project, *budget);
        out["audit_verdicts"] = *verdicts;
        out["hash_chain_ok"] = integrity.ok;
        out["integrity"] = integrity.line;
        out["integrity_ok"] = integrity.ok;
        out["integrity_problems"] = integrity.details;
        std::cout << out.dump(2) << '\n';
    } else {
        std::cout << project.path().string() << '\n' << integrity.line << '\n';
        for (const auto& d : integrity.details) std::cout << "  " << oneLine(d) << '\n';
        std::cout << project::describeBudget(*budget);
        for (const auto& line : *verdicts) std::cout << "  audit verdict: " << line << '\n';
    }
    return integrity.ok ? 0 : 1;
}

}  // namespace

void registerBudgetCommand(CLI::App& app, CommandContext& ctx) {
    auto args = std::make_shared<BudgetArgs>();
    auto* cmd = app.add_subcommand(
        "budget", "The privacy budget: what all DP releases of every project on the sensitive data set spent together");
    cmd->add_option("project", args->projectPath, "a .dpmix project (a spec JSON opens the project next to it)")
        ->required();
    cmd->add_flag("--json", args->json, "print the budget as one JSON object");
    cmd->add_option("--cap", args->cap,
                    "set the data set's cap in its budget store (an epsilon, or none), shared by every project on "
                    "the data; the project file is not changed");
    cmd->callback([&ctx, args] {
        // Read-only: --cap writes the budget store, never the project.
        auto project = openProjectToRead(args->projectPath);
        if (!project) {
            std::cerr << "dpmix budget: " << project.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        if (!args->cap.empty()) {
            auto cap = parseCap(args->cap);
            if (!cap) {
                std::cerr << "dpmix budget: " << cap.error().message << '\n';
                ctx.exitCode = 2;
                return;
            }
            if (auto err = setStoreCap(*project, *cap)) {
                std::cerr << "dpmix budget: " << err->message << '\n';
                ctx.exitCode = 1;
                return;
            }
        }
        ctx.exitCode = printBudget(*project, args->json);
    });
}

}  // namespace dpmix::cli
