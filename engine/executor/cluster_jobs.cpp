#include "engine/executor/cluster_jobs.h"

#include "engine/core/file_door.h"

#include "engine/core/double_bits.h"
#include "engine/data/sha256.h"
#include "engine/executor/adamix_units.h"
#include "engine/executor/audit_units.h"
#include "engine/executor/cluster_job_files.h"
#include "engine/executor/cluster_private_files.h"
#include "engine/executor/cluster_process.h"
#include "engine/executor/kscaling_units.h"
#include "engine/executor/run_units.h"
#include "engine/executor/sweep_units.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

namespace dpmix::executor::cluster {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string newJobId(JobKind kind) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    std::random_device rd;
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "%06x", rd() & 0xffffffu);
    return nameOf(kind) + "-" + stamp + "-" + suffix;
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
        return Error{
            "sbatch is not on PATH: this host cannot submit to Slurm (load the cluster's Slurm module, or run "
            "on a login node; the local executor runs the work here)"};
    auto r = runProgram(argv);
    if (r.rc != 0)
        return Error{"sbatch failed (exit " + std::to_string(r.rc) +
                     "): " + (trimmed(r.err).empty() ? trimmed(r.out) : trimmed(r.err))};
    std::string id = trimmed(r.out);
    id = id.substr(0, id.find(';'));  // --parsable: "id" or "id;cluster"
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        return Error{"sbatch printed no job id: '" + trimmed(r.out) + "'"};
    json line{{"slurm_job", id}, {"units", units}, {"array", list}, {"at", utcStamp()}};
    std::ofstream subs(job.dir / "submissions.jsonl", std::ios::app);
    subs << line.dump() << '\n';
    subs.flush();
    if (!subs || makePrivateFile(job.dir / "submissions.jsonl"))
        return Error{"submitted Slurm job " + id + " but could not record it in " +
                     (job.dir / "submissions.jsonl").string() + ": cancel it with scancel " + id};
    return id;
}

}  // namespace

Status checkCanSubmit() {
    if (!findOnPath("sbatch"))
        return Error{
            "sbatch is not on PATH: this host cannot submit to Slurm (load the cluster's Slurm module, or run "
            "on a login node; the local executor runs the work here)"};
    return std::nullopt;
}

fs::path jobsRoot(const fs::path& projectFile) { return fs::path(projectFile.string() + ".jobs"); }

long long JobStatus::count(const std::string& state) const {
    return std::count_if(units.begin(), units.end(), [&](const UnitStatus& u) { return u.state == state; });
}

Result<SubmitReport> submitJob(const project::ProjectFile& project, JobKind kind, const std::string& frozenSpec,
                               const std::vector<WorkUnit>& units, const SlurmOptions& options, bool dryRun,
                               const std::function<Status(const fs::path&)>& populate) {
    if (units.empty()) return Error{"a job needs at least one unit"};
    if (!dryRun)
        if (auto e = checkCanSubmit()) return *e;
    SubmitReport report;
    report.jobId = newJobId(kind);
    report.dir = jobsRoot(project.path()).lexically_normal() / report.jobId;  // the project path is absolute
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
    for (const auto& u : units)
        unitList.push_back({{"id", u.id}, {"seed", u.seed}, {"params", json::parse(u.paramsJson)}});
    json meta{{"format", kJobFormat},
              {"job_id", report.jobId},
              {"kind", nameOf(kind)},
              {"created_at", utcStamp()},
              {"spec_hash", data::sha256Hex(frozenSpec)},
              {"project",
               {{"file", project.path().string()},  // absolute (ProjectFile::path)
                {"spec_hash", projectSpecHash(project)},
                {"created_at", project.createdAt()}}},
              {"slurm",
               {{"max_parallel", options.maxParallel},
                {"partition", options.partition},
                {"time", options.time},
                {"account", options.account},
                {"cpus_per_task", options.cpusPerTask},
                {"gpus_per_task", options.gpusPerTask}}}};
    // The owner's only (cluster_private_files.h): the jobs root, the job and its subfolders.
    std::error_code ec;
    for (const fs::path& d : {report.dir.parent_path(), report.dir, report.dir / "units", report.dir / "logs"})
        if (auto e = makePrivateDirectory(d)) {
            fs::remove_all(report.dir, ec);
            return Error{"cannot create the job directory: " + e->message};
        }
    auto cleanup = [&] { fs::remove_all(report.dir, ec); };
    for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{{"spec.json", frozenSpec},
                                                                                     {"units.json", unitList.dump(1)},
                                                                                     {"job.sbatch", report.script},
                                                                                     {"job.json", meta.dump(2)}})
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
    if (!entry)
        return Error{
            "unit " + std::to_string(unit) + ": the job has units 0 to " + std::to_string(job->units.size() - 1),
            "unit"};
    const fs::path out = unitResultPath(jobDir, unit);
    if (files::exists(out.string())) {
        if (readUnitResult(*job, unit)) return std::nullopt;  // done before (a resubmission): immutable
        return Error{out.string() + " exists but is not a valid result: remove it to run the unit again"};
    }
    const auto kind = parseJobKind(job->meta.value("kind", ""));
    if (!kind) return kind.error();
    json result;
    switch (*kind) {
        case JobKind::Audit: {
            const auto& p = entry->at("params");
            const bool in = p.at("world").get<std::string>() == "in";
            auto block = runFrozenAuditUnit(job->spec, in, p.at("begin").get<long long>(), p.at("end").get<long long>(),
                                            threads);
            if (!block) return block.error();
            json scores = json::array();
            for (double v : block->scores) scores.push_back(doubleToHexBits(v));
            result = {{"world", in ? "in" : "out"},
                      {"begin", block->begin},
                      {"end", block->end},
                      {"scores", scores},
                      {"canary_samples", block->canarySamples}};
            break;
        }
        case JobKind::Run: {
            auto done = runStudyUnit(jobDir, job->spec, unit, entry->at("params").at("seed").get<std::uint64_t>());
            if (!done) return done.error();
            result = json::parse(*done);
            break;
        }
        case JobKind::KScaling: {
            auto done = runKScalingUnit(job->spec, entry->at("params").at("class").get<long long>(), threads);
            if (!done) return done.error();
            result = json::parse(*done);
            break;
        }
        case JobKind::Adamix: {
            const auto& p = entry->at("params");
            auto done = runAdamixUnit(jobDir, job->spec, p.at("seed").get<long long>(),
                                      p.at("private_index").get<long long>(), threads);
            if (!done) return done.error();
            result = json::parse(*done);
            break;
        }
        case JobKind::Sweep: {
            auto done =
                runSweepUnit(jobDir, job->spec, unit, entry->at("params").at("value").get<std::string>(), threads);
            if (!done) return done.error();
            result = json::parse(*done);
            break;
        }
    }
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    json body{{"format", kUnitFormat}, {"job_id", job->id()}, {"spec_hash", job->meta.at("spec_hash")},
              {"unit", unit},          {"host", host},        {"finished_at", utcStamp()},
              {"result", result}};
    body["checksum"] = checksumOf(body);
    return writeAtomically(out, body.dump());
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
            if (latest.empty())
                return Error{"unit " + std::to_string(*unit) + " of job " + job.id() + " was never submitted"};
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
        log.close();
        (void)makePrivateFile(job.dir / "cancellations.jsonl");
    }
    return std::nullopt;
}

Result<SubmitReport> resubmitFailed(const fs::path& projectFile, const std::string& jobId,
                                    std::optional<long long> maxParallel) {
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
    return Error{"job: the project has several jobs, name one: " + names, "job"};
}

}  // namespace dpmix::executor::cluster
