#include "engine/pipeline/cluster_jobs.h"

#include "engine/core/double_bits.h"
#include "engine/data/sha256.h"
#include "engine/pipeline/audit_units.h"
#include "engine/pipeline/cluster_process.h"
#include "engine/pipeline/run_units.h"
#include "engine/pipeline/kscaling_units.h"
#include "engine/pipeline/sweep_units.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

namespace dpmix::pipeline::cluster {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kJobFormat = "dpmix-cluster-job/1";
constexpr const char* kUnitFormat = "dpmix-unit-result/1";

std::string utcStamp() { return project::utcTimestamp(); }

std::string checksumOf(const json& body) { return data::sha256Hex(body.dump()); }

std::string projectSpecHash(const project::ProjectFile& project) { return data::sha256Hex(project.specJson()); }

std::string newJobId(const std::string& kind) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    std::random_device rd;
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "%06x", rd() & 0xffffffu);
    return kind + "-" + stamp + "-" + suffix;
}

// A job directory as read back.
struct Job {
    fs::path dir;
    json meta;          // job.json
    std::string spec;   // spec.json's text
    json units;         // units.json
    std::vector<json> submissions;
    std::string id() const { return meta.value("job_id", dir.filename().string()); }
};

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
        if (!fs::is_directory(dir)) return Error{"no job '" + jobId + "' in " + root.string()};
        auto job = readJob(dir);
        if (!job) return job.error();
        jobs.push_back(std::move(job).value());
        return jobs;
    }
    if (!fs::is_directory(root)) return jobs;
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root))
        if (e.is_directory()) dirs.push_back(e.path());
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
        if (j.value("unit", -1LL) != unit) return Error{p.string() + ": holds unit " + std::to_string(j.value("unit", -1LL))};
        return j;
    } catch (const json::exception& e) {
        return Error{p.string() + ": not valid JSON (" + std::string(e.what()) + ")"};
    }
}

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
        } catch (const json::exception&) {
        }
    return cancelled;
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
        } catch (const json::exception&) {
        }
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
        if (fs::exists(unitResultPath(job.dir, us.id))) {
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
                     p.value("file", std::string("?")) + " (spec hash " + p.value("spec_hash", std::string("?")).substr(0, 12) +
                     "…, created " + p.value("created_at", std::string("?")) + "), not " + project.path().string() +
                     " (spec hash " + projectSpecHash(project).substr(0, 12) + "…, created " + project.createdAt() +
                     "); nothing was merged"};
    return std::nullopt;
}

Result<std::string> sbatchSubmit(const Job& job, const std::vector<long long>& units, long long maxParallel,
                                 std::string* commandOut = nullptr) {
    std::string list;
    // Contiguous ranges: 0-7, or 3,5 for a resubmission.
    for (std::size_t i = 0; i < units.size();) {
        std::size_t k = i;
        while (k + 1 < units.size() && units[k + 1] == units[k] + 1) ++k;
        list += (list.empty() ? "" : ",") + std::to_string(units[i]) + (k > i ? "-" + std::to_string(units[k]) : "");
        i = k + 1;
    }
    if (maxParallel > 0) list += "%" + std::to_string(maxParallel);
    std::vector<std::string> argv{"sbatch", "--parsable", "--array=" + list, (job.dir / "job.sbatch").string()};
    if (commandOut) {
        for (const auto& a : argv) *commandOut += (commandOut->empty() ? "" : " ") + a;
    }
    if (!findOnPath("sbatch"))
        return Error{"sbatch is not on PATH: this host cannot submit to Slurm (load the cluster's Slurm module, or run "
                     "on a login node; --executor local runs the work here)"};
    auto r = runProgram(argv);
    if (r.rc != 0)
        return Error{"sbatch failed (exit " + std::to_string(r.rc) + "): " +
                     (trimmed(r.err).empty() ? trimmed(r.out) : trimmed(r.err))};
    std::string id = trimmed(r.out);
    id = id.substr(0, id.find(';'));  // --parsable: "id" or "id;cluster"
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        return Error{"sbatch printed no job id: '" + trimmed(r.out) + "'"};
    json line{{"slurm_job", id}, {"units", units}, {"array", list}, {"at", utcStamp()}};
    std::ofstream subs(job.dir / "submissions.jsonl", std::ios::app);
    subs << line.dump() << '\n';
    subs.flush();
    if (!subs) return Error{"submitted Slurm job " + id + " but could not record it in " + (job.dir / "submissions.jsonl").string() +
                            ": cancel it with scancel " + id};
    return id;
}

}  // namespace

Status checkCanSubmit() {
    if (!findOnPath("sbatch"))
        return Error{"sbatch is not on PATH: this host cannot submit to Slurm (load the cluster's Slurm module, or run "
                     "on a login node; --executor local runs the work here)"};
    return std::nullopt;
}

fs::path jobsRoot(const fs::path& projectFile) { return fs::path(projectFile.string() + ".jobs"); }

long long JobStatus::count(const std::string& state) const {
    return std::count_if(units.begin(), units.end(), [&](const UnitStatus& u) { return u.state == state; });
}

Result<SubmitReport> submitJob(const project::ProjectFile& project, const std::string& kind, const std::string& frozenSpec,
                               const std::vector<WorkUnit>& units, const SlurmOptions& options, bool dryRun,
                               const std::function<Status(const fs::path&)>& populate) {
    if (units.empty()) return Error{"a job needs at least one unit"};
    if (!dryRun)
        if (auto e = checkCanSubmit()) return *e;
    SubmitReport report;
    report.jobId = newJobId(kind);
    report.dir = fs::absolute(jobsRoot(project.path())) / report.jobId;
    report.units = static_cast<long long>(units.size());
    report.script = sbatchScript(report.dir, report.jobId, options);
    std::vector<long long> ids;
    for (const auto& u : units) ids.push_back(u.id);
    Job job;
    job.dir = report.dir;
    if (dryRun) {
        std::string list = "0-" + std::to_string(units.size() - 1);
        if (options.maxParallel > 0) list += "%" + std::to_string(options.maxParallel);
        report.command = "sbatch --parsable --array=" + list + " " + (report.dir / "job.sbatch").string();
        return report;
    }
    json unitList = json::array();
    for (const auto& u : units) unitList.push_back({{"id", u.id}, {"seed", u.seed}, {"params", json::parse(u.paramsJson)}});
    json meta{{"format", kJobFormat},
              {"job_id", report.jobId},
              {"kind", kind},
              {"created_at", utcStamp()},
              {"spec_hash", data::sha256Hex(frozenSpec)},
              {"project",
               {{"file", fs::absolute(project.path()).string()},
                {"spec_hash", projectSpecHash(project)},
                {"created_at", project.createdAt()}}},
              {"slurm",
               {{"max_parallel", options.maxParallel},
                {"partition", options.partition},
                {"time", options.time},
                {"account", options.account},
                {"cpus_per_task", options.cpusPerTask},
                {"gpus_per_task", options.gpusPerTask}}}};
    std::error_code ec;
    fs::create_directories(report.dir / "units", ec);
    if (!ec) fs::create_directories(report.dir / "logs", ec);
    if (ec) return Error{"cannot create the job directory " + report.dir.string() + ": " + ec.message()};
    auto cleanup = [&] { fs::remove_all(report.dir, ec); };
    for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
             {"spec.json", frozenSpec}, {"units.json", unitList.dump(1)}, {"job.sbatch", report.script}, {"job.json", meta.dump(2)}})
        if (auto e = writeAtomically(report.dir / name, text)) {
            cleanup();
            return *e;
        }
    if (populate)
        if (auto e = populate(report.dir)) {
            cleanup();
            return Error{e->message + "; nothing was submitted and the job directory was removed"};
        }
    job.meta = meta;
    auto id = sbatchSubmit(job, ids, options.maxParallel, &report.command);
    if (!id) {
        cleanup();
        return Error{id.error().message + "; nothing was submitted and the job directory was removed"};
    }
    report.slurmJobId = *id;
    return report;
}

Result<std::vector<JobStatus>> jobStatus(const fs::path& projectFile, const std::string& jobId) {
    auto jobs = readJobs(projectFile, jobId);
    if (!jobs) return jobs.error();
    std::vector<JobStatus> out;
    for (const auto& j : *jobs) out.push_back(statusOf(j));
    return out;
}

Status runWorkerUnit(const fs::path& jobDir, long long unit, int threads) {
    auto job = readJob(jobDir);
    if (!job) return job.error();
    const json* entry = nullptr;
    for (const auto& u : job->units)
        if (u.at("id").get<long long>() == unit) entry = &u;
    if (!entry) return Error{"--unit " + std::to_string(unit) + ": the job has units 0 to " + std::to_string(job->units.size() - 1)};
    const fs::path out = unitResultPath(jobDir, unit);
    if (fs::exists(out)) {
        if (readUnitResult(*job, unit)) return std::nullopt;  // done before (a resubmission): immutable
        return Error{out.string() + " exists but is not a valid result: remove it to run the unit again"};
    }
    const std::string kind = job->meta.value("kind", "");
    json result;
    if (kind == "audit") {
        const auto& p = entry->at("params");
        const bool in = p.at("world").get<std::string>() == "in";
        auto block = runFrozenAuditUnit(job->spec, in, p.at("begin").get<long long>(), p.at("end").get<long long>(), threads);
        if (!block) return block.error();
        json scores = json::array();
        for (double v : block->scores) scores.push_back(doubleToHexBits(v));
        result = {{"world", in ? "in" : "out"},
                  {"begin", block->begin},
                  {"end", block->end},
                  {"scores", scores},
                  {"canary_samples", block->canarySamples}};
    } else if (kind == "run") {
        auto done = runStudyUnit(jobDir, job->spec, unit, entry->at("params").at("seed").get<std::uint64_t>());
        if (!done) return done.error();
        result = json::parse(*done);
    } else if (kind == "kscaling") {
        auto done = runKScalingUnit(job->spec, entry->at("params").at("class").get<long long>(), threads);
        if (!done) return done.error();
        result = json::parse(*done);
    } else if (kind == "sweep") {
        auto done = runSweepUnit(jobDir, job->spec, unit, entry->at("params").at("value").get<std::string>(), threads);
        if (!done) return done.error();
        result = json::parse(*done);
    } else {
        return Error{"job kind '" + kind + "' is not one this dpmix runs"};
    }
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    json body{{"format", kUnitFormat},
              {"job_id", job->id()},
              {"spec_hash", job->meta.at("spec_hash")},
              {"unit", unit},
              {"host", host},
              {"finished_at", utcStamp()},
              {"result", result}};
    body["checksum"] = checksumOf(body);
    return writeAtomically(out, body.dump());
}

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
        if (!fs::exists(unitResultPath(job.dir, id))) {
            complete = false;
            continue;
        }
        auto r = readUnitResult(job, id);
        if (!r) return Error{"job " + job.id() + ", unit " + std::to_string(id) + ": corrupt result: " + r.error().message +
                             ". Nothing was merged; remove the file and resubmit the unit (dpmix jobs resubmit)"};
        if (!r->contains("result")) return Error{"job " + job.id() + ", unit " + std::to_string(id) + ": the result holds nothing"};
        out.emplace_back(id, r->at("result"));
    }
    return out;
}

Status mergeAuditJob(project::ProjectFile& project, const Job& job, const std::vector<std::pair<long long, json>>& results,
                     MergeReport& m) {
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
    m.summary = "stored k-scaling run " + std::to_string(stored->runId) + " (" + std::to_string(stored->classes.size()) +
                " classes" + (stored->fitted ? ", slope " + std::to_string(stored->fit.slope) : std::string()) + ")";
    return std::nullopt;
}

// A run grid or a sweep: each unit's runs, in unit order (seeds, sweep points); a run merged
// before is not merged again.
Status mergeRunJob(project::ProjectFile& project, const Job& job, const std::vector<std::pair<long long, json>>& results,
                   MergeReport& m) {
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
    const std::string units = job.meta.value("kind", "") == "sweep" ? " sweep point(s)" : " seed(s)";
    m.summary = m.imported ? "stored " + std::to_string(m.runIds.size()) + " run(s) of " + std::to_string(results.size()) + units
                           : "already merged (" + std::to_string(total) + " run(s))";
    return std::nullopt;
}

}  // namespace

Result<std::vector<MergeReport>> mergeJobs(project::ProjectFile& project, const std::string& jobId) {
    auto jobs = readJobs(project.path(), jobId);
    if (!jobs) return jobs.error();
    if (jobs->empty()) return Error{"no cluster jobs in " + jobsRoot(project.path()).string()};
    // Refuse before writing anything: every job must be this project's, of a kind this dpmix merges.
    for (const auto& job : *jobs) {
        if (auto e = checkJobBelongs(project, job)) return *e;
        const std::string kind = job.meta.value("kind", "");
        if (kind != "audit" && kind != "run" && kind != "sweep" && kind != "kscaling")
            return Error{"job " + job.id() + ": job kind '" + kind + "' cannot be merged"};
    }
    std::vector<MergeReport> reports;
    for (const auto& job : *jobs) {
        MergeReport m;
        m.jobId = job.id();
        m.kind = job.meta.value("kind", "");
        // Kinds stored as one run (the audit, the k-scaling) are found by their provenance line.
        const bool oneRun = m.kind == "audit" || m.kind == "kscaling";
        if (auto existing = oneRun ? runFromJob(project, job) : std::nullopt) {
            m.alreadyMerged = true;
            m.runId = *existing;
            m.summary = "already merged as run " + std::to_string(*existing);
            if (!fs::exists(job.dir / "merged.json"))
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
            const std::string done = std::to_string(status.count("done")) + " of " + std::to_string(status.units.size()) + " units done";
            if (oneRun) {  // the audit's bound needs every run, the k-scaling's summary every class
                m.summary = done + "; the " + (m.kind == "audit" ? "audit" : "k-scaling") +
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
            if (auto e = mergeRunJob(project, job, prefix, m)) return *e;
            m.alreadyMerged = false;
            m.summary = done + "; " + (m.runIds.empty() ? "nothing new to store" : "stored " + std::to_string(m.runIds.size()) +
                        " run(s) of units 0 to " + std::to_string(prefix.size() - 1)) + ", the rest once they finish";
            reports.push_back(m);
            continue;
        }
        const Status failed = m.kind == "audit"      ? mergeAuditJob(project, job, *results, m)
                               : m.kind == "kscaling" ? mergeKScalingJob(project, job, *results, m)
                                                      : mergeRunJob(project, job, *results, m);
        if (failed) return *failed;
        json merged{{"at", utcStamp()}};
        merged["run_id"] = oneRun || m.runIds.empty() ? m.runId : m.runIds.front();
        if (!oneRun) merged["run_ids"] = m.runIds;
        if (m.imported) (void)writeAtomically(job.dir / "merged.json", merged.dump(2));
        reports.push_back(m);
    }
    return reports;
}

Status cancelJob(const fs::path& projectFile, const std::string& jobId, std::optional<long long> unit) {
    auto jobs = readJobs(projectFile, jobId);
    if (!jobs) return jobs.error();
    if (!findOnPath("scancel")) return Error{"scancel is not on PATH: this host cannot reach Slurm"};
    for (const auto& job : *jobs) {
        std::vector<std::string> argv{"scancel"};
        if (unit) {
            std::string latest;
            for (const auto& s : job.submissions)
                for (const auto& u : s.at("units"))
                    if (u.get<long long>() == *unit) latest = s.at("slurm_job").get<std::string>();
            if (latest.empty()) return Error{"unit " + std::to_string(*unit) + " of job " + job.id() + " was never submitted"};
            argv.push_back(latest + "_" + std::to_string(*unit));
        } else {
            for (const auto& s : job.submissions) argv.push_back(s.at("slurm_job").get<std::string>());
            if (argv.size() == 1) continue;
        }
        auto r = runProgram(argv);
        if (r.rc != 0) return Error{"scancel failed (exit " + std::to_string(r.rc) + "): " + trimmed(r.err)};
        // Slurm forgets a pending array task cancelled before it was split off: the job
        // directory remembers what dpmix cancelled.
        std::ofstream log(job.dir / "cancellations.jsonl", std::ios::app);
        for (std::size_t i = 1; i < argv.size(); ++i)
            log << json{{"slurm", argv[i]}, {"at", utcStamp()}}.dump() << '\n';
    }
    return std::nullopt;
}

Result<SubmitReport> resubmitFailed(const fs::path& projectFile, const std::string& jobId, std::optional<long long> maxParallel) {
    auto jobs = readJobs(projectFile, jobId);
    if (!jobs) return jobs.error();
    if (jobs->size() != 1) return Error{"resubmit: name one job"};
    const Job& job = jobs->front();
    const JobStatus st = statusOf(job);
    if (!st.slurmNote.empty()) return Error{"resubmit: cannot tell which units failed: " + st.slurmNote};
    std::vector<long long> failed;
    for (const auto& u : st.units)
        if (u.state == "failed") failed.push_back(u.id);
    for (const auto& u : st.units)
        if (u.state == "corrupt")
            return Error{"unit " + std::to_string(u.id) + " has a corrupt result (" + u.detail +
                         "): remove the file, then resubmit"};
    if (failed.empty()) return Error{"job " + job.id() + " has no failed units to resubmit"};
    SubmitReport report;
    report.jobId = job.id();
    report.dir = job.dir;
    report.units = static_cast<long long>(failed.size());
    const long long parallel = maxParallel.value_or(job.meta.at("slurm").value("max_parallel", 0LL));
    auto id = sbatchSubmit(job, failed, parallel, &report.command);
    if (!id) return id.error();
    report.slurmJobId = *id;
    return report;
}

Result<std::string> onlyJob(const fs::path& projectFile) {
    auto jobs = readJobs(projectFile, {});
    if (!jobs) return jobs.error();
    if (jobs->size() == 1) return jobs->front().id();
    if (jobs->empty()) return Error{"no cluster jobs in " + jobsRoot(projectFile).string()};
    std::string names;
    for (const auto& j : *jobs) names += (names.empty() ? "" : ", ") + j.id();
    return Error{"the project has several jobs; name one with --job: " + names};
}

}  // namespace dpmix::pipeline::cluster
