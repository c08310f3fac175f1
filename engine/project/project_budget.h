#pragma once
// The privacy budget of a project's sensitive dataset (an odometer): every DP release stored in
// the project — DP-MixMin mixtures, fine-tuned models, every point of a sweep, and the runs that
// were cancelled, failed or interrupted after their mechanism started — composed by the
// accountant (privacy::composeBudget), against the spec's optional cap `privacy.budget`.
// Not counted, and listed as such: runs whose ledger is not private (λ*, Random Search: ε = ∞,
// computed for the analyst, never to be released), audits (experiments on the mechanism), and
// test-set metrics (computed for the analyst; no ledger). docs/PRIVACY.md, "Privacy budget".
#include "engine/core/result.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/dataset_budget.h"
#include "engine/project/project_file.h"

#include <optional>
#include <string>
#include <vector>

namespace dpmix::project {

struct UncountedRun {
    long long runId = 0;
    std::string method;
    std::string why;
};

struct ProjectBudget {
    privacy::PrivacyBudget total;                  // what the counted releases spent together
    std::vector<privacy::BudgetRelease> releases;  // the counted releases, in run order
    std::vector<UncountedRun> uncounted;           // runs that used sensitive data but are no DP release
    std::optional<double> cap;                     // the smaller of the store's cap and the spec's privacy.budget
    std::optional<double> specCap, storeCap;       // each of them
    std::string unit;                              // "users" or "examples": what each ε protects
    // The data set's budget store (budget_store.h). Without one (`storePath` empty) the budget is
    // this file's runs only.
    std::string storePath, storeSource;
    bool storeKnowsDataset = false;               // false: nothing charged to this data set there yet
    long long fileReleases = 0;                   // the counted releases this file's runs made
    long long otherReleases = 0;                  // ... other project files (or runs no longer in this file) made
    std::vector<StoredReservation> reservations;  // open reservations, counted in full
};

/// The budget of the project's sensitive data set: this file's runs (the last ledger of each)
/// with everything the budget store holds for the data set.
Result<ProjectBudget> projectBudget(const ProjectFile& project);

/// The same from records already read (the workbench's snapshot): each run with its ledgers,
/// and the store as read with them (nullptr: this file's runs only).
struct RunLedgers {
    RunRecord run;
    std::vector<LedgerRecord> ledgers;
};
Result<ProjectBudget> budgetOf(const ProjectSpec& spec, const std::vector<RunLedgers>& runs,
                               const StoreView* store = nullptr);
/// Every run of the project with its ledgers, in run order.
Result<std::vector<RunLedgers>> runLedgersOf(const ProjectFile& project);

/// The releases of one run's ledger (empty when the ledger is not private: see uncounted). An
/// entry the ledger carries from another run (LedgerEntry::spentInRun: a downstream run reusing a
/// stored DP-MixMin λ) is that run's release and is left out here — but only when `runs` (the
/// file's) hold that run with the same entry in its last ledger; otherwise it counts here.
std::vector<privacy::BudgetRelease> releasesOf(const RunRecord& run, const privacy::Ledger& ledger,
                                               const std::vector<RunLedgers>& runs);

/// The entries of `ledger` that are another run's releases, counted there (see releasesOf).
std::vector<const privacy::LedgerEntry*> carriedReleases(const privacy::Ledger& ledger,
                                                         const std::vector<RunLedgers>& runs);

/// The budget after adding `planned` releases, and whether that exceeds the cap: an error with
/// the figures (spent so far, this run, after, cap) when it would.
struct BudgetForecast {
    double before = 0.0, after = 0.0;
    std::optional<double> cap;
};
BudgetForecast forecastBudget(const ProjectBudget& current, const std::vector<privacy::BudgetRelease>& planned);
Status refuseOverBudget(const ProjectBudget& current, const std::vector<privacy::BudgetRelease>& planned);

/// The budget as plain text (for `dpmix budget` and `dpmix inspect`): the dataset total, each
/// part of the data, the cap, and what is not counted and why.
std::string describeBudget(const ProjectBudget& budget);

}  // namespace dpmix::project
