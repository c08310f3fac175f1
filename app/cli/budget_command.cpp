// `dpmix budget PROJECT [--json]`: what every DP release stored in the project has spent on the
// sensitive data together (project/project_budget.h), against the spec's cap. Reads only.
#include "app/cli/command.h"
#include "app/cli/project_commands.h"
#include "app/cli/read_project_command.h"
#include "engine/pipeline/training_audit_stage.h"
#include "engine/project/project_budget.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>

namespace dpmix::cli {
namespace {

nlohmann::ordered_json number(double v) {
    return std::isinf(v) ? nlohmann::ordered_json("inf") : nlohmann::ordered_json(v);
}

nlohmann::ordered_json budgetJson(const project::ProjectFile& project, const project::ProjectBudget& b) {
    nlohmann::ordered_json out{{"project", project.path().string()},
                               {"unit", b.unit},
                               {"epsilon", number(b.total.epsilon)},
                               {"delta", b.total.delta},
                               {"releases", b.total.releases},
                               {"cap", b.cap ? nlohmann::ordered_json(*b.cap) : nlohmann::ordered_json(nullptr)},
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
    return out;
}

}  // namespace

void registerBudgetCommand(CLI::App& app, CommandContext& ctx) {
    addReadProjectCommand(
        app, ctx,
        {"budget", "The privacy budget: what all DP releases of a project spent on its sensitive data together",
         "a .dpmix project (a spec JSON opens the project next to it)", "print the budget as one JSON object"},
        [](const project::ProjectFile& project, bool json) {
            auto budget = project::projectBudget(project);
            if (!budget) {
                std::cerr << "dpmix budget: " << budget.error().message << '\n';
                return 1;
            }
            const auto integrity = checkIntegrity(project);
            // What the stored audits say of the claims behind it (docs/AUDIT.md, "Verdicts").
            auto verdicts = pipeline::projectClaimVerdicts(project);
            if (!verdicts) {
                std::cerr << "dpmix budget: " << verdicts.error().message << '\n';
                return 1;
            }
            if (json) {
                auto out = budgetJson(project, *budget);
                out["audit_verdicts"] = *verdicts;
                out["hash_chain_ok"] = integrity.ok;
                out["integrity"] = integrity.line;
                std::cout << out.dump(2) << '\n';
            } else {
                std::cout << project.path().string() << '\n'
                          << integrity.line << '\n'
                          << project::describeBudget(*budget);
                for (const auto& line : *verdicts) std::cout << "  audit verdict: " << line << '\n';
            }
            return integrity.ok ? 0 : 1;
        });
}

}  // namespace dpmix::cli
