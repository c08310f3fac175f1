#pragma once
// A Slurm unit with secret randomness is a release, and so is each attempt at it (docs/CLUSTER.md,
// "Secret runs"): the first start of its worker, a resubmission, a requeue. Its DP noise comes
// from the operating system's entropy, so a second attempt draws new noise and releases anew.
//
// At submission the grid reserves every unit's releases once (pipeline::reserveStudyRun) and
// freezes what a worker needs to reserve again without opening the project: the data owner's
// budget store (its path on the file system the nodes share), the data set's key, the grid's
// reservation, the run's cap and each unit's own releases. Nothing secret is frozen: the
// releases are ledger entries (q, σ, steps, δ), the same the project will show.
//
// A worker records its attempt in that store before anything of the unit runs
// (BudgetStore::reserveAttempt): the first attempt of a unit runs under the grid's reservation,
// a later one reserves the unit's releases again. A store it cannot reach, a grid already
// settled, or a later attempt over the cap runs nothing; a worker killed after its reservation
// leaves it counted.
#include "engine/core/result.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/budget_store.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::executor {

/// What a secret grid's workers reserve their attempts with, frozen at submission.
struct UnitBudget {
    std::filesystem::path store;  // absolute: the nodes resolve no environment of the submitting host
    project::DatasetKey dataset;
    long long gridReservation = 0;  // 0: the grid plans no DP release (nothing to reserve)
    std::optional<double> cap;      // the run's own and the spec's cap, the smaller (the store's is in the store)
    std::map<std::uint64_t, std::vector<privacy::BudgetRelease>> unitPlans;  // each unit's releases, by seed
};

/// As JSON text (the cap as the hex of its IEEE-754 bits), and back, checked.
std::string unitBudgetJson(const UnitBudget& budget);
Result<UnitBudget> unitBudgetFromJson(const std::string& text);

/// The Slurm task this process runs as, for the attempt's listing ("Slurm job 41 array task 1,
/// restart 0"; SLURM_RESTART_COUNT counts requeues), or "not under Slurm (pid N)".
std::string slurmTaskName();

/// Records the attempt of `unit` (seed `seed`) in the frozen store before it runs; an error
/// (store unreachable, no such reservation, grid settled, over the cap) means the unit must not run.
/// A unit whose seed plans no release reserves nothing (attempt 0).
Result<project::AttemptGrant> reserveUnitAttempt(const UnitBudget& budget, long long unit, std::uint64_t seed);

}  // namespace dpmix::executor
