#pragma once
// The budget store: one SQLite file, kept by the data owner, that every project using a
// sensitive data set charges. The budget belongs to the data set — its content hash and privacy
// unit — not to one project file, so a duplicate study, a new project made from an exported spec,
// two processes on one project and a Slurm grid all charge the same rows (docs/PRIVACY.md,
// "The budget store").
//
// Reserve, then compute: before any private computation a run reserves its planned releases in
// one BEGIN IMMEDIATE transaction that composes everything charged to the data set with the plan
// and refuses the plan over the cap. A second writer waits for the lock and then sees the
// reservation. When the run ends (done, cancelled or failed) it settles: the ledgers its runs
// recorded in the project replace the plan. A reservation that is never settled (its process was
// killed) stays counted in full.
//
// A Slurm grid with secret randomness adds attempts (docs/CLUSTER.md, "Secret runs"): each start
// of a unit's worker — the first, a resubmission, a requeue — is a release of its own, recorded
// here before its mechanism runs. The first attempt of a unit runs under the grid's reservation;
// every later one reserves the unit's releases again. When the merge settles the grid, the later
// attempts' reservations are kept: counted for good, since an attempt whose runs were not merged
// may still have released something.
//
// Torch-free and Qt-free, like the rest of engine/project.
#include "engine/core/result.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/process_identity.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::project {

class Database;

/// What a budget is kept for: one sensitive data set, at one privacy unit.
struct DatasetKey {
    std::string contentHash;  // hex SHA-256 of the decoded sensitive examples (SourceFacts::contentHash)
    std::string unit;         // "users" or "examples": what each ε protects
    bool operator==(const DatasetKey&) const = default;
};

/// The releases a project's run recorded (its last ledger), as the project file says.
struct RunCharge {
    long long runId = 0;
    ProcessIdentity owner;  // the process that ran it (empty pid: unknown)
    std::vector<privacy::BudgetRelease> releases;
};

/// A project's side of a charge: which file, and what its runs spent.
struct ProjectCharges {
    std::string key;   // the project's identity (projectKey(): a copy of the file has the same key)
    std::string path;  // where the file was when it charged (for listings only)
    std::vector<RunCharge> runs;
};

/// A later attempt of a cluster unit, as its reservation records it (none for other reservations).
struct AttemptOf {
    long long gridReservation = 0;  // the submission's reservation the unit belongs to
    long long unit = 0;
    long long attempt = 0;  // 2, 3, …: the first attempt runs under the grid's reservation
    std::string slurm;      // the Slurm task that started it, for listings
    bool kept = false;      // its job was merged: counted for good (it may have released something)
};

/// A reservation as stored: open until its run settles it.
struct StoredReservation {
    long long id = 0;
    std::string projectKey, projectPath, what, createdAt;
    bool open = true;
    ProcessIdentity owner;
    Liveness ownerLiveness = Liveness::Unknown;  // as checked when read
    std::vector<privacy::BudgetRelease> planned;
    std::optional<AttemptOf> attempt;  // a cluster unit's later attempt
    long long attemptsStarted = 0;     // a grid's: the attempts of its units recorded so far
};

/// A cluster unit's attempt to reserve before its mechanism runs: which grid reservation it
/// runs under, and the releases of its own part of the grid (its seed's).
struct AttemptRequest {
    long long gridReservation = 0;
    long long unit = 0;
    std::string slurm;  // the Slurm task starting it ("Slurm job 42_1, restart 0"), for listings
    std::vector<privacy::BudgetRelease> planned;
};

/// What an attempt was granted: its number and, from the second on, its own reservation.
struct AttemptGrant {
    long long attempt = 0;
    long long reservation = 0;  // 0: the first attempt, covered by the grid's reservation
};

/// A release spent by a project's run, as stored.
struct StoredSpend {
    std::string projectKey, projectPath;
    long long runId = 0;
    ProcessIdentity owner;  // the process that ran the run
    privacy::BudgetRelease release;
};

/// Everything the store holds for one data set.
struct DatasetCharges {
    bool known = false;  // the store has a row for the data set (false: nothing charged here yet)
    std::optional<double> cap;
    std::vector<StoredSpend> spent;
    std::vector<StoredReservation> reservations;  // open ones only
};

/// The releases counted against the data set: the store's, with `project`'s own runs (as its
/// file says now) in place of what the store recorded for them. Runs owned by the process of one
/// of that project's open reservations are left out: the reservation's plan already covers them.
struct CountedParts {
    long long fromProject = 0;  // the project's own runs
    long long fromStore = 0;    // other projects' runs, and this project's runs no longer in its file
    long long planned = 0;      // plans of open reservations
};
std::vector<privacy::BudgetRelease> countedReleases(const DatasetCharges& charges, const ProjectCharges* project,
                                                    CountedParts* parts = nullptr);

class BudgetStore {
public:
    /// Opens the store, creating it (and its folder, mode 0700; the file 0600) when absent.
    static Result<BudgetStore> open(const std::filesystem::path& file);
    /// Opens an existing store to read it; nullopt when there is no file (nothing charged).
    static Result<std::optional<BudgetStore>> openForReading(const std::filesystem::path& file);

    BudgetStore(BudgetStore&&) noexcept;
    BudgetStore& operator=(BudgetStore&&) noexcept;
    ~BudgetStore();

    const std::filesystem::path& path() const { return path_; }

    Result<DatasetCharges> charges(const DatasetKey& dataset) const;

    /// The data owner's cap for the data set (nullopt: none); recorded even before any charge.
    Status setCap(const DatasetKey& dataset, std::optional<double> cap);

    /// In one transaction: records the project's runs, composes everything counted with
    /// `planned`, refuses it when over the smaller of the store's cap and `runCap`, else stores an
    /// open reservation owned by this process. Returns its id.
    Result<long long> reserve(const DatasetKey& dataset, const ProjectCharges& project,
                              const std::vector<privacy::BudgetRelease>& planned, std::optional<double> runCap,
                              const std::string& what);

    /// In one transaction: records the project's runs (what was really spent) and closes the
    /// reservation, whose plan then no longer counts. The later attempts of a grid's units keep
    /// their reservations, counted for good.
    Status settle(long long reservationId, const ProjectCharges& project);

    /// Records the project's runs without a reservation (a merge of cluster runs, an import).
    Status record(const DatasetKey& dataset, const ProjectCharges& project);

    /// In one transaction, before a cluster unit's mechanism runs: records the unit's next
    /// attempt under the open grid reservation. The first is covered by the grid's plan; a later
    /// one reserves `planned` again, refused over the smaller of the store's cap and `runCap`.
    /// Refused as well when the grid reservation is unknown, of another data set or settled.
    Result<AttemptGrant> reserveAttempt(const DatasetKey& dataset, const AttemptRequest& request,
                                        std::optional<double> runCap);

private:
    BudgetStore(std::filesystem::path path, std::unique_ptr<Database> db);
    std::filesystem::path path_;
    std::unique_ptr<Database> db_;
};

/// The composed ε of `releases`, and the refusal a plan over `cap` gets (nullopt: within it).
struct CapCheck {
    double before = 0.0, after = 0.0;
};
CapCheck checkAgainstCap(const std::vector<privacy::BudgetRelease>& counted,
                         const std::vector<privacy::BudgetRelease>& planned);

}  // namespace dpmix::project
