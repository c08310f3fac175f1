#pragma once
// A project's side of the budget store (budget_store.h): which store it charges, which data set
// its budget is kept for, what its runs spent, and the reservation a run holds while it computes.
// docs/PRIVACY.md, "The budget store".
#include "engine/core/result.h"
#include "engine/project/budget_store.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::project {

class ProjectFile;
struct ProjectSpec;
struct RunLedgers;

/// Where a project's budget store is, and why there.
struct StoreLocation {
    std::filesystem::path path;
    std::string source;  // "privacy.budget_store", "DPMIX_BUDGET_STORE" or "the user's store"
};

/// privacy.budget_store of the spec (relative to the project file's folder); else the
/// environment's DPMIX_BUDGET_STORE; else $XDG_DATA_HOME/dpmix/budget-store.sqlite (by default
/// ~/.local/share/dpmix/budget-store.sqlite). An error when none can be named (no HOME).
Result<StoreLocation> budgetStoreLocation(const ProjectSpec& spec, const std::filesystem::path& projectFile);

/// The project's identity in the store: a hash of its spec row (text and creation time), so a
/// copy of the file is the same project and a duplicate study is another one.
std::string projectKey(const ProjectFile& project);

/// The data set the project's budget is kept for: its sensitive source's content hash and unit.
Result<DatasetKey> datasetKeyOf(const ProjectFile& project);

/// What each run of the project spent, as its last ledger says (runs without a ledger or with a
/// non-private one are left out).
ProjectCharges projectCharges(const std::string& key, const std::string& path, const std::vector<RunLedgers>& runs);
Result<ProjectCharges> projectCharges(const ProjectFile& project);

/// The store as a project reads it: where it is, the data set, and what the store holds for it
/// (nothing when the store file does not exist yet).
struct StoreView {
    StoreLocation location;
    DatasetKey dataset;
    std::string projectKey;
    DatasetCharges charges;
};
/// Reads the store without writing anything (a missing store is an empty view).
Result<StoreView> readStoreView(const ProjectFile& project);

/// A run's hold on the data set's budget: made by reserveBudget() before any private
/// computation; settled when the run ends — by settle() or, failing that, by the destructor — so
/// the ledgers its runs recorded replace the plan. A process killed before settling leaves the
/// reservation in the store, counted in full.
class BudgetReservation {
public:
    BudgetReservation() = default;
    BudgetReservation(BudgetReservation&&) noexcept;
    BudgetReservation& operator=(BudgetReservation&&) noexcept;
    ~BudgetReservation();

    long long id() const { return id_; }
    const std::filesystem::path& storePath() const { return storePath_; }
    /// Records what the project's runs spent and closes the reservation (once).
    Status settle();
    /// Leaves the reservation open in the store for another process to settle (a Slurm grid's
    /// merge): returns its id; this object no longer settles it.
    long long keepOpen();

private:
    friend Result<BudgetReservation> reserveBudget(ProjectFile&, const std::vector<privacy::BudgetRelease>&,
                                                   std::optional<double>, const std::string&);
    ProjectFile* project_ = nullptr;
    std::optional<BudgetStore> store_;
    std::filesystem::path storePath_;
    long long id_ = 0;
};

/// Reserves `planned` on the project's data set in its store: refused (nothing stored) when the
/// total would exceed the smaller of the store's cap, the spec's privacy.budget and `runCap`.
/// A plan without releases reserves nothing but still records the project's runs.
Result<BudgetReservation> reserveBudget(ProjectFile& project, const std::vector<privacy::BudgetRelease>& planned,
                                        std::optional<double> runCap, const std::string& what);

/// Settles reservation `id` of the project's store once the runs it was made for are stored (a
/// merge of cluster runs): refused, and left open, when those runs' releases compose to more
/// than the reservation planned.
Status settleReservation(ProjectFile& project, long long id, const std::vector<long long>& runIds);

}  // namespace dpmix::project
