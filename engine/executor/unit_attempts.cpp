// A secret unit's attempt, reserved before it runs (unit_attempts.h).
#include "engine/executor/unit_attempts.h"

#include "engine/core/double_bits.h"
#include "engine/privacy/ledger_json.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>

namespace dpmix::executor {
using nlohmann::json;

namespace {

json releasesJson(const std::vector<privacy::BudgetRelease>& releases) {
    json out = json::array();
    for (const auto& r : releases) {
        privacy::Ledger one;  // the ledger's own form, as the budget store keeps an entry
        one.record(r.entry);
        out.push_back({{"label", r.label}, {"partition", r.partition}, {"entry", privacy::ledgerToJson(one)}});
    }
    return out;
}

Result<std::vector<privacy::BudgetRelease>> releasesFrom(const json& list) {
    std::vector<privacy::BudgetRelease> out;
    for (const auto& r : list) {
        auto ledger = privacy::ledgerFromJson(r.at("entry").get<std::string>());
        if (!ledger) return Error{"a unit's planned release cannot be read: " + ledger.error().message};
        if (ledger->entries().size() != 1) return Error{"a unit's planned release holds no single ledger entry"};
        out.push_back(
            {0, r.at("label").get<std::string>(), r.at("partition").get<std::string>(), ledger->entries().front()});
    }
    return out;
}

std::string environment(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

}  // namespace

std::string unitBudgetJson(const UnitBudget& b) {
    json plans = json::array();
    for (const auto& [seed, releases] : b.unitPlans)
        plans.push_back({{"seed", seed}, {"releases", releasesJson(releases)}});
    json out{{"store", b.store.string()},
             {"dataset", {{"content_hash", b.dataset.contentHash}, {"unit", b.dataset.unit}}},
             {"grid_reservation", b.gridReservation},
             {"unit_plans", plans}};
    if (b.cap) out["cap"] = doubleToHexBits(*b.cap);
    return out.dump();
}

Result<UnitBudget> unitBudgetFromJson(const std::string& text) {
    UnitBudget b;
    try {
        const json j = json::parse(text);
        b.store = j.at("store").get<std::string>();
        b.dataset = {j.at("dataset").at("content_hash").get<std::string>(),
                     j.at("dataset").at("unit").get<std::string>()};
        b.gridReservation = j.at("grid_reservation").get<long long>();
        if (j.contains("cap")) b.cap = doubleFromHexBitsOrThrow(j.at("cap").get<std::string>());
        for (const auto& p : j.at("unit_plans")) {
            auto releases = releasesFrom(p.at("releases"));
            if (!releases) return releases.error();
            b.unitPlans[p.at("seed").get<std::uint64_t>()] = std::move(releases).value();
        }
    } catch (const std::exception& e) {
        return Error{std::string("frozen run: malformed unit budget (") + e.what() + ")"};
    }
    if (!b.store.is_absolute())
        return Error{"frozen run: the budget store's path is not absolute: " + b.store.string()};
    return b;
}

std::string slurmTaskName() {
    const std::string array = environment("SLURM_ARRAY_JOB_ID"), task = environment("SLURM_ARRAY_TASK_ID");
    const std::string job = array.empty() ? environment("SLURM_JOB_ID") : array;
    if (job.empty()) return "not under Slurm (pid " + std::to_string(::getpid()) + ")";
    const std::string restarts = environment("SLURM_RESTART_COUNT");
    return "Slurm job " + job + (task.empty() ? std::string() : " array task " + task) + ", restart " +
           (restarts.empty() ? std::string("0") : restarts);
}

Result<project::AttemptGrant> reserveUnitAttempt(const UnitBudget& budget, long long unit, std::uint64_t seed) {
    const auto plan = budget.unitPlans.find(seed);
    if (plan == budget.unitPlans.end())
        return Error{"the frozen run has no planned releases for seed " + std::to_string(seed) + "; nothing was run"};
    if (plan->second.empty()) return project::AttemptGrant{};  // no mechanism touches the sensitive data
    if (budget.gridReservation == 0)
        return Error{"the frozen run plans releases but holds no reservation to run them under; nothing was run"};
    // Never created here: a store the node cannot see is refused, not replaced by an empty one.
    std::error_code ec;
    if (!std::filesystem::exists(budget.store, ec))
        return Error{"budget store " + budget.store.string() +
                     " cannot be found from this node: a unit with secret randomness reserves each attempt there "
                     "before it runs, so the store must be on a file system the nodes share; nothing was run"};
    auto opened = project::BudgetStore::open(budget.store);
    if (!opened) return opened.error();
    project::BudgetStore store = std::move(opened).value();
    return store.reserveAttempt(budget.dataset, {budget.gridReservation, unit, slurmTaskName(), plan->second},
                                budget.cap);
}

}  // namespace dpmix::executor
