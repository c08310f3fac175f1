#include "engine/executor/cluster_job_files.h"

#include "engine/core/file_door.h"

#include "engine/data/sha256.h"
#include "engine/executor/cluster_process.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace dpmix::executor::cluster {
namespace fs = std::filesystem;
using nlohmann::json;

std::string utcStamp() { return project::utcTimestamp(); }

std::string checksumOf(const json& body) { return data::sha256Hex(body.dump()); }

std::string projectSpecHash(const project::ProjectFile& project) { return data::sha256Hex(project.specJson()); }

Result<Job> readJob(const fs::path& dir) {
    Job job;
    job.dir = dir;
    bool ok = false;
    const std::string metaText = readText(dir / "job.json", &ok);
    if (!ok) return Error{dir.string() + " is not a job directory (no job.json)"};
    try {
        job.meta = json::parse(metaText);
        if (job.meta.value("format", "") != kJobFormat)
            return Error{dir.string() + "/job.json: not a dpmix job (format '" + job.meta.value("format", "") + "')"};
        job.spec = readText(dir / "spec.json", &ok);
        if (!ok) return Error{dir.string() + ": spec.json is missing"};
        if (data::sha256Hex(job.spec) != job.meta.at("spec_hash").get<std::string>())
            return Error{dir.string() + ": spec.json does not match the spec hash in job.json (edited or damaged)"};
        job.units = json::parse(readText(dir / "units.json", &ok));
        if (!ok || !job.units.is_array()) return Error{dir.string() + ": units.json is missing or not a list"};
        std::ifstream subs(dir / "submissions.jsonl");
        std::string line;
        while (std::getline(subs, line)) {
            if (trimmed(line).empty()) continue;
            json sub = json::parse(line);
            if (!sub.contains("slurm_job") || !sub["slurm_job"].is_string() || !sub.contains("units") ||
                !sub["units"].is_array())
                return Error{dir.string() + "/submissions.jsonl: a line is not a submission: " + trimmed(line)};
            job.submissions.push_back(std::move(sub));
        }
        for (const auto& u : job.units)
            if (!u.is_object() || !u.contains("id") || !u["id"].is_number_integer() || !u.contains("params"))
                return Error{dir.string() + "/units.json: a unit has no id or parameters"};
        if (!job.meta.contains("project") || !job.meta["project"].is_object() || !job.meta.contains("slurm"))
            return Error{dir.string() + "/job.json: no project or slurm section"};
    } catch (const json::exception& e) {
        return Error{dir.string() + ": a job file is not valid JSON: " + e.what()};
    }
    return job;
}

Result<std::vector<Job>> readJobs(const fs::path& projectFile, const std::string& jobId) {
    const fs::path root = jobsRoot(projectFile);
    std::vector<Job> jobs;
    if (!jobId.empty()) {
        const fs::path dir = fs::path(jobId).has_parent_path() ? fs::path(jobId) : root / jobId;
        if (!files::isDirectory(dir.string())) return Error{"no job '" + jobId + "' in " + root.string()};
        auto job = readJob(dir);
        if (!job) return job.error();
        jobs.push_back(std::move(job).value());
        return jobs;
    }
    if (!files::isDirectory(root.string())) return jobs;
    std::vector<fs::path> dirs;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
        if (std::error_code kind; it->is_directory(kind)) dirs.push_back(it->path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
        auto job = readJob(d);
        if (!job) return job.error();
        jobs.push_back(std::move(job).value());
    }
    return jobs;
}

fs::path unitResultPath(const fs::path& dir, long long unit) {
    return dir / "units" / ("unit-" + std::to_string(unit) + ".json");
}

namespace {

std::string logPath(const fs::path& dir, long long unit, const std::string& slurmJob) {
    return (dir / "logs" / ("unit-" + std::to_string(unit) + "." + slurmJob + ".log")).string();
}

// Array task states of Slurm jobs: "J_i" → state. sacct when accounting is on, else squeue
// (which keeps finished jobs for MinJobAge seconds). `note` says why nothing is known.
std::map<std::string, std::string> slurmStates(const std::set<std::string>& slurmJobs, std::string& note) {
    std::map<std::string, std::string> states;
    if (slurmJobs.empty()) return states;
    std::string ids;
    for (const auto& j : slurmJobs) ids += (ids.empty() ? "" : ",") + j;
    if (findOnPath("sacct")) {
        auto r = runProgram({"sacct", "-n", "-P", "-X", "-j", ids, "-o", "JobID,State"});
        if (r.rc == 0) {
            std::istringstream lines(r.out);
            std::string line;
            while (std::getline(lines, line)) {
                const auto bar = line.find('|');
                if (bar == std::string::npos) continue;
                std::string state = line.substr(bar + 1);
                state = state.substr(0, state.find(' '));  // "CANCELLED by 0"
                states[line.substr(0, bar)] = state;
            }
            if (!states.empty()) return states;
        }
    }
    if (!findOnPath("squeue")) {
        note = "squeue is not on PATH: the Slurm states are unknown";
        return states;
    }
    auto r = runProgram({"squeue", "-h", "-r", "--states=all", "-j", ids, "-o", "%i %T"});
    if (r.rc != 0) {
        // A job id squeue no longer knows is not an error of the controller.
        if (r.err.find("Invalid job id") == std::string::npos) {
            note = "squeue failed: " + trimmed(r.err);
            return states;
        }
    }
    std::istringstream lines(r.out);
    std::string id, state;
    while (lines >> id >> state) states[id] = state;
    return states;
}

bool isActive(const std::string& slurmState) {
    return slurmState == "PENDING" || slurmState == "RUNNING" || slurmState == "CONFIGURING" ||
           slurmState == "COMPLETING" || slurmState == "REQUEUED" || slurmState == "RESIZING" ||
           slurmState == "SUSPENDED";
}

// What `dpmix jobs cancel` cancelled (Slurm job or array task ids).
std::set<std::string> cancelledBy(const Job& job) {
    std::set<std::string> cancelled;
    std::ifstream in(job.dir / "cancellations.jsonl");
    std::string line;
    while (std::getline(in, line)) try {
            if (!trimmed(line).empty()) cancelled.insert(json::parse(line).at("slurm").get<std::string>());
        } catch (const json::exception&) {}
    return cancelled;
}

}  // namespace

// A unit's result file checked: format, job, spec hash, unit id and checksum.
Result<json> readUnitResult(const Job& job, long long unit) {
    const fs::path p = unitResultPath(job.dir, unit);
    bool ok = false;
    const std::string text = readText(p, &ok);
    if (!ok) return Error{"no result file"};
    try {
        json j = json::parse(text);
        if (j.value("format", "") != kUnitFormat) return Error{p.string() + ": not a unit result"};
        const std::string checksum = j.value("checksum", "");
        json body = j;
        body.erase("checksum");
        if (checksum.empty() || checksumOf(body) != checksum)
            return Error{p.string() + ": the checksum does not match its content (damaged or edited)"};
        if (j.value("spec_hash", "") != job.meta.at("spec_hash").get<std::string>())
            return Error{p.string() + ": written for another spec (its spec hash differs from the job's)"};
        if (j.value("unit", -1LL) != unit)
            return Error{p.string() + ": holds unit " + std::to_string(j.value("unit", -1LL))};
        return j;
    } catch (const json::exception& e) {
        return Error{p.string() + ": not valid JSON (" + std::string(e.what()) + ")"};
    }
}

JobStatus statusOf(const Job& job) {
    JobStatus st;
    st.jobId = job.id();
    st.kind = job.meta.value("kind", "");
    st.dir = job.dir;
    bool ok = false;
    const std::string merged = readText(job.dir / "merged.json", &ok);
    if (ok) try {
            st.mergedRun = json::parse(merged).at("run_id").get<long long>();
        } catch (const json::exception&) {}
    // The latest submission of each unit.
    std::map<long long, std::string> latest;
    std::set<std::string> slurmJobs;
    for (const auto& s : job.submissions)
        for (const auto& u : s.at("units")) {
            latest[u.get<long long>()] = s.at("slurm_job").get<std::string>();
            slurmJobs.insert(s.at("slurm_job").get<std::string>());
        }
    std::vector<UnitStatus> pendingLookup;
    for (const auto& u : job.units) {
        UnitStatus us;
        us.id = u.at("id").get<long long>();
        if (latest.count(us.id)) {
            us.slurmJobId = latest[us.id];
            us.log = logPath(job.dir, us.id, us.slurmJobId);
        }
        if (files::exists(unitResultPath(job.dir, us.id).string())) {
            auto r = readUnitResult(job, us.id);
            us.state = r ? "done" : "corrupt";
            if (!r) us.detail = r.error().message;
        }
        st.units.push_back(us);
    }
    bool needSlurm = false;
    for (const auto& u : st.units) needSlurm = needSlurm || u.state.empty();
    std::map<std::string, std::string> states;
    if (needSlurm) states = slurmStates(slurmJobs, st.slurmNote);
    const std::set<std::string> cancelled = cancelledBy(job);
    for (auto& u : st.units) {
        if (!u.state.empty()) continue;
        if (u.slurmJobId.empty()) {
            u.state = "failed";
            u.detail = "never submitted";
            continue;
        }
        auto it = states.find(u.slurmJobId + "_" + std::to_string(u.id));
        if (it == states.end()) {
            // A pending array that squeue has not split yet shows as J_[a-b%P].
            for (const auto& [id, state] : states)
                if (id.rfind(u.slurmJobId + "_[", 0) == 0 && state == "PENDING") it = states.find(id);
        }
        if (it == states.end()) {
            if (cancelled.count(u.slurmJobId) || cancelled.count(u.slurmJobId + "_" + std::to_string(u.id))) {
                u.state = "failed";
                u.slurmState = "CANCELLED";
                u.detail = "cancelled with dpmix jobs cancel";
            } else if (!st.slurmNote.empty()) {
                u.state = "unknown";
                u.detail = st.slurmNote;
            } else {
                u.state = "failed";
                u.slurmState = "UNKNOWN";
                u.detail = "Slurm no longer knows the task and it wrote no result";
            }
            continue;
        }
        u.slurmState = it->second;
        if (isActive(it->second)) {
            u.state = it->second == "PENDING" ? "pending" : "running";
        } else {
            u.state = "failed";
            if (it->second == "COMPLETED") u.detail = "the task ended but wrote no result";
        }
    }
    return st;
}

// Runs and logs of the project that came from this job (the merge's idempotence lives in the
// project, not in the job directory).
std::string provenanceLine(const Job& job) {
    return "merged from cluster job " + job.id() + " (spec " + job.meta.at("spec_hash").get<std::string>() + ")";
}

std::optional<long long> runFromJob(const project::ProjectFile& project, const Job& job) {
    auto runs = project.runs();
    if (!runs) return std::nullopt;
    const std::string line = provenanceLine(job);
    for (const auto& r : *runs) {
        // A merge that died before its run was done left an interrupted run: not a merge.
        if (r.status != project::RunStatus::Done) continue;
        auto logs = project.logs(r.id);
        if (!logs) continue;
        for (const auto& l : *logs)
            if (l.message == line) return r.id;
    }
    return std::nullopt;
}

Status checkJobBelongs(const project::ProjectFile& project, const Job& job) {
    const auto& p = job.meta.at("project");
    if (p.value("spec_hash", "") != projectSpecHash(project) || p.value("created_at", "") != project.createdAt())
        return Error{"job " + job.id() + " (" + job.dir.string() + ") belongs to another project: it was made for " +
                     p.value("file", std::string("?")) + " (spec hash " +
                     p.value("spec_hash", std::string("?")).substr(0, 12) + "…, created " +
                     p.value("created_at", std::string("?")) + "), not " + project.path().string() + " (spec hash " +
                     projectSpecHash(project).substr(0, 12) + "…, created " + project.createdAt() +
                     "); nothing was merged"};
    return std::nullopt;
}

}  // namespace dpmix::executor::cluster
