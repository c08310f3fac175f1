// dpmix jobs merge: the single writer that imports a job's finished units into the project
// (docs/CLUSTER.md). Idempotent: what was merged is found again by its provenance line.
#include "engine/core/double_bits.h"
#include "engine/core/file_door.h"
#include "engine/executor/adamix_units.h"
#include "engine/executor/audit_units.h"
#include "engine/executor/cluster_job_files.h"
#include "engine/executor/cluster_process.h"
#include "engine/executor/kscaling_units.h"
#include "engine/executor/run_units.h"
#include "engine/project/dataset_budget.h"

#include <algorithm>
#include <cstdio>

namespace dpmix::executor::cluster {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Result<audit::CanaryAuditBlock> auditBlockOf(const json& r) {
    audit::CanaryAuditBlock b;
    b.in = r.at("world").get<std::string>() == "in";
    b.begin = r.at("begin").get<long long>();
    b.end = r.at("end").get<long long>();
    b.canarySamples = r.at("canary_samples").get<long long>();
    for (const auto& v : r.at("scores")) {
        auto d = doubleFromHexBits(v.get<std::string>());
        if (!d) return Error{"a score is not 16 hex digits"};
        b.scores.push_back(*d);
    }
    return b;
}

// Every unit's result of a job, checked (a corrupt one is an error: nothing is merged); a unit
// without a result file is left out, and `complete` tells whether any was.
Result<std::vector<std::pair<long long, json>>> unitResults(const Job& job, bool& complete) {
    std::vector<std::pair<long long, json>> out;
    complete = true;
    for (const auto& u : job.units) {
        const long long id = u.at("id").get<long long>();
        if (!files::exists(unitResultPath(job.dir, id).string())) {
            complete = false;
            continue;
        }
        auto r = readUnitResult(job, id);
        if (!r)
            return Error{"job " + job.id() + ", unit " + std::to_string(id) + ": corrupt result: " + r.error().message +
                         ". Nothing was merged; remove the file and resubmit the unit (dpmix jobs resubmit)"};
        if (!r->contains("result"))
            return Error{"job " + job.id() + ", unit " + std::to_string(id) + ": the result holds nothing"};
        out.emplace_back(id, r->at("result"));
    }
    return out;
}

Status mergeAuditJob(project::ProjectFile& project, const Job& job,
                     const std::vector<std::pair<long long, json>>& results, MergeReport& m) {
    std::vector<audit::CanaryAuditBlock> blocks;
    for (const auto& [id, result] : results) {
        try {
            auto b = auditBlockOf(result);
            if (!b) return Error{"job " + job.id() + ", unit " + std::to_string(id) + ": " + b.error().message};
            const auto& p = job.units.at(static_cast<std::size_t>(id)).at("params");
            if (b->in != (p.at("world").get<std::string>() == "in") || b->begin != p.at("begin").get<long long>() ||
                b->end != p.at("end").get<long long>())
                return Error{"job " + job.id() + ", unit " + std::to_string(id) +
                             ": its result holds other runs than the unit list says; nothing was merged"};
            blocks.push_back(std::move(b).value());
        } catch (const json::exception& e) {
            return Error{"job " + job.id() + ", unit " + std::to_string(id) + ": malformed result: " + e.what()};
        }
    }
    auto stored = storeFrozenAudit(project, job.spec, blocks, provenanceLine(job));
    if (!stored) return Error{"job " + job.id() + ": " + stored.error().message};
    m.imported = true;
    m.runId = stored->runId;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", stored->result.epsilonLB);
    m.summary = "stored audit run " + std::to_string(stored->runId) + " (" + stored->name + ", epsilon_LB " + buf + ")";
    return std::nullopt;
}

// The k-scaling: every class's rows, summarised and stored as one run (as the local experiment).
Status mergeKScalingJob(project::ProjectFile& project, const Job& job,
                        const std::vector<std::pair<long long, json>>& results, MergeReport& m) {
    std::vector<std::pair<long long, std::string>> classes;
    for (const auto& [id, result] : results) {
        const auto& p = job.units.at(static_cast<std::size_t>(id)).at("params");
        if (result.value("class", -1LL) != p.at("class").get<long long>())
            return Error{"job " + job.id() + ", unit " + std::to_string(id) +
                         ": its result holds another class than the unit list says; nothing was merged"};
        classes.emplace_back(result.at("class").get<long long>(), result.dump());
    }
    auto stored = storeFrozenKScaling(project, job.spec, classes, provenanceLine(job));
    if (!stored) return Error{"job " + job.id() + ": " + stored.error().message};
    m.imported = true;
    m.runId = stored->runId;
    m.summary = "stored k-scaling run " + std::to_string(stored->runId) + " (" +
                std::to_string(stored->classes.size()) + " classes" +
                (stored->fitted ? ", slope " + std::to_string(stored->fit.slope) : std::string()) + ")";
    return std::nullopt;
}

// The AdaMix-R experiment: every grid part assembled and stored as one run (as the local experiment).
Status mergeAdamixJob(project::ProjectFile& project, const Job& job,
                      const std::vector<std::pair<long long, json>>& results, MergeReport& m) {
    std::vector<std::pair<long long, std::string>> parts;
    for (const auto& [id, result] : results) {
        const auto& p = job.units.at(static_cast<std::size_t>(id)).at("params");
        if (result.value("seed", -1LL) != p.at("seed").get<long long>() ||
            result.value("private_index", -1LL) != p.at("private_index").get<long long>())
            return Error{"job " + job.id() + ", unit " + std::to_string(id) +
                         ": its result holds another part of the grid than the unit list says; nothing was merged"};
        parts.emplace_back(id, result.dump());
    }
    auto stored = storeFrozenAdamix(project, job.dir, job.spec, parts, provenanceLine(job));
    if (!stored) return Error{"job " + job.id() + ": " + stored.error().message};
    m.imported = true;
    m.runId = stored->runId;
    m.summary = "stored AdaMix-R experiment run " + std::to_string(stored->runId) + " (" +
                std::to_string(stored->result.cells.size()) + " cells)";
    return std::nullopt;
}

// Every run of the project merged from `job` (by this merge or an earlier one): what settles
// the grid's reservation.
Result<std::vector<long long>> runsMergedFrom(const project::ProjectFile& project, const Job& job) {
    const std::string prefix = provenanceLine(job) + " unit ";
    auto runs = project.runs();
    if (!runs) return runs.error();
    std::vector<long long> out;
    for (const auto& r : *runs) {
        auto logs = project.logs(r.id);
        if (!logs) return logs.error();
        if (std::any_of(logs->begin(), logs->end(),
                        [&](const project::LogRecord& l) { return l.message.rfind(prefix, 0) == 0; }))
            out.push_back(r.id);
    }
    return out;
}

// A run grid reserved its releases at submission: once every unit is stored, the merged runs
// settle it (refused when they spend more than was reserved; it then stays counted in full),
// and its units' later attempts stay counted for good (budget_store.h). Before that the
// reservation stays open: the units still missing may be running.
Status settleGridReservation(project::ProjectFile& project, const Job& job) {
    const json frozen = json::parse(job.spec, nullptr, /*allow_exceptions=*/false);
    if (!frozen.is_object() || !frozen.contains("budget_reservation") ||
        !frozen.at("budget_reservation").is_number_integer())
        return std::nullopt;
    auto merged = runsMergedFrom(project, job);
    if (!merged) return merged.error();
    if (auto e = project::settleReservation(project, frozen.at("budget_reservation").get<long long>(), *merged))
        return Error{"job " + job.id() + ": " + e->message};
    return std::nullopt;
}

// A run grid or a sweep: each unit's runs, in unit order (seeds, sweep points); a run merged
// before is not merged again. `complete`: every unit of the job is among `results`.
Status mergeRunJob(project::ProjectFile& project, const Job& job,
                   const std::vector<std::pair<long long, json>>& results, bool complete, MergeReport& m) {
    long long total = 0;
    for (const auto& [id, result] : results) {
        const std::string provenance = provenanceLine(job) + " unit " + std::to_string(id);
        auto added = importStudyUnit(project, job.dir, result.dump(), provenance);
        if (!added) return Error{"job " + job.id() + ", unit " + std::to_string(id) + ": " + added.error().message};
        m.runIds.insert(m.runIds.end(), added->begin(), added->end());
        total += static_cast<long long>(result.value("runs", json::array()).size());
    }
    m.imported = !m.runIds.empty();
    m.alreadyMerged = m.runIds.empty();
    if (complete)
        if (auto e = settleGridReservation(project, job)) return e;
    const std::string units = " " + std::string(traitsOf(m.kind).units);
    m.summary = m.imported ? "stored " + std::to_string(m.runIds.size()) + " run(s) of " +
                                 std::to_string(results.size()) + units
                           : "already merged (" + std::to_string(total) + " run(s))";
    return std::nullopt;
}

// A job whose every unit is stored: its folder goes (with the jobs root once empty), unless kept.
void removeMergedJob(const Job& job, const MergeOptions& options, MergeReport& m) {
    if (!options.removeJobFiles) return;
    std::error_code ec;
    fs::remove_all(job.dir, ec);
    if (ec) {
        m.summary += "; the job folder " + job.dir.string() + " could not be removed (" + ec.message() +
                     "): delete it by hand, it holds data derived from the sensitive data";
        return;
    }
    m.removed = true;
    m.summary += "; job folder removed";
    const fs::path root = job.dir.parent_path();
    if (fs::is_directory(root, ec) && fs::is_empty(root, ec)) fs::remove(root, ec);
}

// A job whose every unit is done: stored by its kind's merge.
Status mergeCompleteJob(project::ProjectFile& project, const Job& job,
                        const std::vector<std::pair<long long, json>>& results, MergeReport& m) {
    switch (m.kind) {
        case JobKind::Audit: return mergeAuditJob(project, job, results, m);
        case JobKind::KScaling: return mergeKScalingJob(project, job, results, m);
        case JobKind::Adamix: return mergeAdamixJob(project, job, results, m);
        case JobKind::Run:
        case JobKind::Sweep: return mergeRunJob(project, job, results, /*complete=*/true, m);
    }
    return Error{"job " + job.id() + ": a job kind without a merge"};  // not reached: every kind is a case
}

}  // namespace

Result<std::vector<MergeReport>> mergeJobs(project::ProjectFile& project, const std::string& jobId,
                                           const MergeOptions& options) {
    auto jobs = readJobs(project.path(), jobId);
    if (!jobs) return jobs.error();
    if (jobs->empty()) return Error{"no cluster jobs in " + jobsRoot(project.path()).string()};
    // Refuse before writing anything: every job must be this project's, of a kind this dpmix merges.
    for (const auto& job : *jobs) {
        if (auto e = checkJobBelongs(project, job)) return *e;
        if (const auto kind = parseJobKind(job.meta.value("kind", "")); !kind)
            return Error{"job " + job.id() + ": " + kind.error().message + ": it cannot be merged"};
    }
    std::vector<MergeReport> reports;
    for (const auto& job : *jobs) {
        MergeReport m;
        m.jobId = job.id();
        m.kind = *parseJobKind(job.meta.value("kind", ""));  // checked above
        // Kinds stored as one run (the audit, the k-scaling, the AdaMix-R experiment) are found by
        // their provenance line.
        const bool oneRun = isStoredAsOneRun(m.kind);
        if (auto existing = oneRun ? runFromJob(project, job) : std::nullopt) {
            m.alreadyMerged = true;
            m.runId = *existing;
            m.summary = "already merged as run " + std::to_string(*existing);
            if (options.removeJobFiles)
                removeMergedJob(job, options, m);
            else if (!files::exists((job.dir / "merged.json").string()))
                (void)writeAtomically(job.dir / "merged.json", json{{"run_id", *existing}, {"at", utcStamp()}}.dump(2));
            reports.push_back(m);
            continue;
        }
        bool complete = true;
        auto results = unitResults(job, complete);
        if (!results) return results.error();
        if (!complete) {
            const JobStatus status = statusOf(job);
            for (const auto& u : status.units)
                if (u.state != "done") m.waiting.push_back(u);
            const std::string done =
                std::to_string(status.count("done")) + " of " + std::to_string(status.units.size()) + " units done";
            if (oneRun) {  // the audit's bound needs every run, a summary every class or grid part
                m.summary = done + "; the " + std::string(traitsOf(m.kind).label) +
                            " is stored once every unit is (nothing merged yet)";
                reports.push_back(m);
                continue;
            }
            // A run grid or a sweep: the units done so far, up to the first one still missing, so
            // the runs land in unit order (a run grid's ids stay a local run's) as units finish.
            std::vector<std::pair<long long, json>> prefix;
            for (const auto& r : *results) {
                if (r.first != static_cast<long long>(prefix.size())) break;
                prefix.push_back(r);
            }
            if (auto e = mergeRunJob(project, job, prefix, /*complete=*/false, m)) return *e;
            m.alreadyMerged = false;
            m.summary = done + "; " +
                        (m.runIds.empty() ? "nothing new to store"
                                          : "stored " + std::to_string(m.runIds.size()) + " run(s) of units 0 to " +
                                                std::to_string(prefix.size() - 1)) +
                        ", the rest once they finish";
            reports.push_back(m);
            continue;
        }
        const Status failed = mergeCompleteJob(project, job, *results, m);
        if (failed) return *failed;
        json merged{{"at", utcStamp()}};
        merged["run_id"] = oneRun || m.runIds.empty() ? m.runId : m.runIds.front();
        if (!oneRun) merged["run_ids"] = m.runIds;
        if (m.imported) (void)writeAtomically(job.dir / "merged.json", merged.dump(2));
        removeMergedJob(job, options, m);  // every unit is stored now
        reports.push_back(m);
    }
    return reports;
}

}  // namespace dpmix::executor::cluster
