#include "engine/project/dataset_budget.h"

#include "engine/data/sha256.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_budget.h"
#include "engine/project/project_file.h"

#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cstdlib>

namespace dpmix::project {
namespace fs = std::filesystem;

Result<StoreLocation> budgetStoreLocation(const ProjectSpec& spec, const fs::path& projectFile) {
    if (!spec.privacy.budgetStore.empty()) {
        fs::path p(spec.privacy.budgetStore);
        if (p.is_relative()) p = projectFile.parent_path() / p;
        return StoreLocation{p.lexically_normal(), "privacy.budget_store"};
    }
    if (const char* env = std::getenv("DPMIX_BUDGET_STORE"); env && *env)
        return StoreLocation{fs::path(env), "DPMIX_BUDGET_STORE"};
    fs::path base;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg && fs::path(xdg).is_absolute())
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = fs::path(home) / ".local" / "share";
    else
        return Error{
            "no budget store can be named: set privacy.budget_store in the spec or DPMIX_BUDGET_STORE (no HOME "
            "or XDG_DATA_HOME in the environment)"};
    return StoreLocation{base / "dpmix" / "budget-store.sqlite", "the user's store"};
}

std::string projectKey(const ProjectFile& project) {
    return data::sha256Hex(project.createdAt() + "\n" + project.specJson());
}

Result<DatasetKey> datasetKeyOf(const ProjectFile& project) {
    auto sources = project.sources();
    if (!sources) return sources.error();
    for (const auto& s : *sources)
        if (s.role == project::SourceRole::Sensitive)
            return DatasetKey{s.facts.contentHash, project.spec().sensitive.userLevel ? "users" : "examples"};
    return Error{project.path().string() + ": the project has no sensitive source"};
}

ProjectCharges projectCharges(const std::string& key, const std::string& path, const std::vector<RunLedgers>& runs) {
    ProjectCharges out{key, path, {}};
    for (const auto& [run, records] : runs) {
        if (records.empty() || run.method == "audit") continue;  // audits: docs/PRIVACY.md, "Audits and experiments"
        auto ledger = privacy::ledgerFromJson(records.back().ledgerJson);
        if (!ledger || ledger->entries().empty()) continue;  // unreadable ledgers are reported by the budget itself
        auto released = releasesOf(run, *ledger, runs);
        if (released.empty()) continue;
        out.runs.push_back({run.id, run.owner, std::move(released)});
    }
    return out;
}

Result<ProjectCharges> projectCharges(const ProjectFile& project) {
    auto runs = runLedgersOf(project);
    if (!runs) return runs.error();
    return projectCharges(projectKey(project), project.path().string(), *runs);
}

Result<StoreView> readStoreView(const ProjectFile& project) {
    auto location = budgetStoreLocation(project.spec(), project.path());
    if (!location) return location.error();
    auto dataset = datasetKeyOf(project);
    if (!dataset) return dataset.error();
    StoreView view{*location, *dataset, projectKey(project), {}};
    auto store = BudgetStore::openForReading(location->path);
    if (!store) return store.error();
    if (!*store) return view;
    auto charges = (*store)->charges(*dataset);
    if (!charges) return charges.error();
    view.charges = std::move(charges).value();
    return view;
}

BudgetReservation::BudgetReservation(BudgetReservation&& o) noexcept
    : project_(o.project_), store_(std::move(o.store_)), storePath_(std::move(o.storePath_)), id_(o.id_) {
    o.project_ = nullptr;
    o.id_ = 0;
}

BudgetReservation& BudgetReservation::operator=(BudgetReservation&& o) noexcept {
    if (this != &o) {
        (void)settle();
        project_ = o.project_;
        store_ = std::move(o.store_);
        storePath_ = std::move(o.storePath_);
        id_ = o.id_;
        o.project_ = nullptr;
        o.id_ = 0;
    }
    return *this;
}

BudgetReservation::~BudgetReservation() {
    try {
        (void)settle();
    } catch (...) {
        // Left open: the reservation stays counted in full, the safe side.
    }
}

Status BudgetReservation::settle() {
    if (id_ == 0 || !project_ || !store_) return std::nullopt;
    auto charges = projectCharges(*project_);
    if (!charges) return charges.error();  // left open, counted in full
    auto settled = store_->settle(id_, *charges);
    if (!settled) id_ = 0;
    return settled;
}

long long BudgetReservation::keepOpen() {
    const long long id = id_;
    id_ = 0;
    return id;
}

Status settleReservation(ProjectFile& project, long long id, const std::vector<long long>& runIds) {
    auto location = budgetStoreLocation(project.spec(), project.path());
    if (!location) return location.error();
    auto dataset = datasetKeyOf(project);
    if (!dataset) return dataset.error();
    auto opened = BudgetStore::open(location->path);
    if (!opened) return opened.error();
    BudgetStore store = std::move(opened).value();
    auto charges = store.charges(*dataset);
    if (!charges) return charges.error();
    const auto reservation = std::find_if(charges->reservations.begin(), charges->reservations.end(),
                                          [&](const StoredReservation& r) { return r.id == id; });
    if (reservation == charges->reservations.end()) return std::nullopt;  // settled before (a second merge)
    auto mine = projectCharges(project);
    if (!mine) return mine.error();
    std::vector<privacy::BudgetRelease> merged;
    for (const auto& run : mine->runs)
        if (std::find(runIds.begin(), runIds.end(), run.runId) != runIds.end())
            merged.insert(merged.end(), run.releases.begin(), run.releases.end());
    const double reserved = privacy::composeBudget(reservation->planned).epsilon;
    const double spent = privacy::composeBudget(merged).epsilon;
    if (spent > reserved * (1.0 + 1e-9))
        return Error{"budget store " + location->path.string() + ": the merged runs spend epsilon " +
                     privacy::formatNumber(spent) + ", more than reservation " + std::to_string(id) + " made at " +
                     "submission (epsilon " + privacy::formatNumber(reserved) +
                     "); the reservation stays open and "
                     "counted in full"};
    return store.settle(id, *mine);
}

Result<BudgetReservation> reserveBudget(ProjectFile& project, const std::vector<privacy::BudgetRelease>& planned,
                                        std::optional<double> runCap, const std::string& what) {
    auto location = budgetStoreLocation(project.spec(), project.path());
    if (!location) return location.error();
    auto dataset = datasetKeyOf(project);
    if (!dataset) return dataset.error();
    auto charges = projectCharges(project);
    if (!charges) return charges.error();
    const auto& specCap = project.spec().privacy.budget;
    if (specCap && (!runCap || *specCap < *runCap)) runCap = specCap;
    auto opened = BudgetStore::open(location->path);
    if (!opened) return Error{opened.error().message + " (" + location->source + ")"};
    BudgetStore store = std::move(opened).value();
    auto id = store.reserve(*dataset, *charges, planned, runCap, what);
    if (!id) return id.error();
    BudgetReservation r;
    r.project_ = &project;
    r.storePath_ = location->path;
    r.id_ = *id;
    r.store_.emplace(std::move(store));
    return r;
}

}  // namespace dpmix::project
