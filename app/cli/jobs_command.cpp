// Cluster jobs (docs/CLUSTER.md):
//   dpmix worker JOBDIR --unit N [--threads T]      one array task: runs unit N, writes its result file
//                [--ranks R]                         (under srun: this Slurm task's rank of its fine-tunings)
//   dpmix jobs status PROJECT [--job ID] [--json]   units done / pending / running / failed (+ Slurm state, log)
//   dpmix jobs merge PROJECT [--job ID] [--json] [--keep-job-files]
//                                                   the single writer: stores finished jobs (idempotent) and
//                                                   deletes each job folder once every unit is stored
//   dpmix jobs cancel PROJECT [--job ID] [--unit N] scancel of the job (or of one array task)
//   dpmix jobs resubmit PROJECT [--job ID] [--max-parallel P]   sbatch of the failed units only
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/project_commands.h"
#include "app/cli/worker_ranks.h"
#include "engine/core/file_door.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/project/project_file.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

namespace dpmix::cli {
namespace {

namespace cluster = executor::cluster;

struct JobsArgs {
    std::string project, job, jobDir;
    long long unit = -1;
    long long maxParallel = -1;
    int threads = 1;
    int ranks = 1;
    bool json = false;
    bool keepJobFiles = false;
};

int fail(const std::string& command, const std::string& message, int code = 1) {
    std::cerr << "dpmix " << command << ": " << message << '\n';
    return code;
}

nlohmann::ordered_json unitJson(const cluster::UnitStatus& u) {
    nlohmann::ordered_json j{{"unit", u.id}, {"state", u.state}};
    if (!u.slurmState.empty()) j["slurm_state"] = u.slurmState;
    if (!u.slurmJobId.empty()) j["slurm_job"] = u.slurmJobId;
    if (!u.log.empty()) j["log"] = u.log;
    if (!u.detail.empty()) j["detail"] = u.detail;
    return j;
}

int executeStatus(const JobsArgs& a) {
    if (!files::exists(a.project)) return fail("jobs status", "no project " + a.project, 2);
    auto jobs = cluster::jobStatus(a.project, a.job);
    if (!jobs) return fail("jobs status", jobs.error().message, 2);
    if (a.json) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& s : *jobs) {
            nlohmann::ordered_json j{{"job", s.jobId}, {"kind", s.kind}, {"dir", s.dir.string()}};
            for (const char* state : {"done", "pending", "running", "failed", "corrupt", "unknown"})
                j[state] = s.count(state);
            j["merged_run"] = s.mergedRun ? nlohmann::ordered_json(*s.mergedRun) : nlohmann::ordered_json(nullptr);
            if (!s.slurmNote.empty()) j["slurm_note"] = s.slurmNote;
            j["units"] = nlohmann::ordered_json::array();
            for (const auto& u : s.units) j["units"].push_back(unitJson(u));
            out.push_back(j);
        }
        std::cout << out.dump(2) << '\n';
        return 0;
    }
    if (jobs->empty()) std::cout << "no cluster jobs for " << a.project << '\n';
    for (const auto& s : *jobs) {
        std::cout << "job " << s.jobId << " (" << s.kind << "): " << s.count("done") << "/" << s.units.size()
                  << " done, " << s.count("pending") << " pending, " << s.count("running") << " running, "
                  << s.count("failed") << " failed"
                  << (s.count("corrupt") ? ", " + std::to_string(s.count("corrupt")) + " corrupt" : "")
                  << (s.mergedRun ? ", merged as run " + std::to_string(*s.mergedRun) : std::string()) << '\n';
        if (!s.slurmNote.empty()) std::cout << "  note: " << s.slurmNote << '\n';
        for (const auto& u : s.units)
            if (u.state == "failed" || u.state == "corrupt" || u.state == "unknown")
                std::cout << "  unit " << u.id << ": " << u.state
                          << (u.slurmState.empty() ? "" : " (Slurm " + u.slurmState + ")")
                          << (u.detail.empty() ? "" : ", " + u.detail) << (u.log.empty() ? "" : "; log " + u.log)
                          << '\n';
    }
    return 0;
}

int executeMerge(const JobsArgs& a) {
    auto opened = openProjectForRuns(a.project);
    if (!opened) return fail("jobs merge", opened.error().message, 2);
    project::ProjectFile project = std::move(opened).value();
    cluster::MergeOptions options;
    options.removeJobFiles = !a.keepJobFiles;  // the folders hold data derived from the sensitive data
    auto reports = cluster::mergeJobs(project, a.job, options);
    if (!reports) return fail("jobs merge", reports.error().message);
    bool waiting = false;
    if (a.json) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& m : *reports) {
            nlohmann::ordered_json j{
                {"job", m.jobId},
                {"kind", executor::cluster::nameOf(m.kind)},
                {"imported", m.imported},
                {"already_merged", m.alreadyMerged},
                {"run_id", m.runId ? nlohmann::ordered_json(m.runId) : nlohmann::ordered_json(nullptr)},
                {"summary", m.summary},
                {"job_files_removed", m.removed}};
            if (!executor::cluster::isStoredAsOneRun(m.kind)) j["run_ids"] = m.runIds;  // the runs this merge stored
            j["waiting"] = nlohmann::ordered_json::array();
            for (const auto& u : m.waiting) j["waiting"].push_back(unitJson(u));
            waiting = waiting || !m.waiting.empty();
            out.push_back(j);
        }
        std::cout << out.dump(2) << '\n';
    } else {
        for (const auto& m : *reports) {
            std::cout << "job " << m.jobId << ": " << m.summary << '\n';
            for (const auto& u : m.waiting)
                std::cout << "  unit " << u.id << ": " << u.state
                          << (u.slurmState.empty() ? "" : " (Slurm " + u.slurmState + ")")
                          << (u.log.empty() ? "" : "; log " + u.log) << '\n';
            waiting = waiting || !m.waiting.empty();
        }
    }
    return waiting ? 3 : 0;  // 3: some job is not complete yet (nothing of it was stored)
}

int executeCancel(const JobsArgs& a) {
    std::string job = a.job;
    if (job.empty()) {
        auto only = cluster::onlyJob(a.project);
        if (!only) return fail("jobs cancel", cliMessage(only.error()), 2);
        job = *only;
    }
    const std::optional<long long> unit = a.unit >= 0 ? std::optional<long long>(a.unit) : std::nullopt;
    if (auto e = cluster::cancelJob(a.project, job, unit)) return fail("jobs cancel", e->message);
    std::cout << "cancelled " << (unit ? "unit " + std::to_string(*unit) + " of " : std::string()) << "job " << job
              << '\n';
    return 0;
}

int executeResubmit(const JobsArgs& a) {
    std::string job = a.job;
    if (job.empty()) {
        auto only = cluster::onlyJob(a.project);
        if (!only) return fail("jobs resubmit", cliMessage(only.error()), 2);
        job = *only;
    }
    const std::optional<long long> parallel =
        a.maxParallel >= 0 ? std::optional<long long>(a.maxParallel) : std::nullopt;
    auto r = cluster::resubmitFailed(a.project, job, parallel);
    if (!r) return fail("jobs resubmit", r.error().message);
    std::cout << "resubmitted " << r->units << " unit(s) of job " << r->jobId << " as Slurm job " << r->slurmJobId
              << " (" << r->command << ")\n";
    return 0;
}

}  // namespace

void registerJobsCommands(CLI::App& app, CommandContext& ctx) {
    auto args = std::make_shared<JobsArgs>();
    auto* worker = app.add_subcommand("worker", "Run one unit of a cluster job (what each Slurm array task runs)");
    worker->add_option("jobdir", args->jobDir, "the job directory (PROJECT.jobs/JOB-ID)")->required();
    worker->add_option("--unit", args->unit, "the unit to run ($SLURM_ARRAY_TASK_ID)")->required();
    worker->add_option("--threads", args->threads, "threads for the unit's runs (default 1)");
    worker->add_option("--ranks", args->ranks,
                       "under srun: the unit's DP-SGD fine-tunings on this many Slurm tasks, SLURM_PROCID 0 as rank 0 "
                       "(default 1)");
    worker->callback([&ctx, args] {
        if (args->threads < 1 || args->ranks < 1) {
            ctx.exitCode = fail("worker", "--threads and --ranks must be >= 1", 2);
            return;
        }
        if (args->ranks > 1) {
            ctx.exitCode = runWorkerOnSlurmRanks(args->jobDir, args->unit, args->threads, args->ranks);
            return;
        }
        if (auto e = cluster::runWorkerUnit(args->jobDir, args->unit, args->threads)) {
            ctx.exitCode = fail("worker", cliMessage(*e));
            return;
        }
        std::cout << "unit " << args->unit << " done\n";
        ctx.exitCode = 0;
    });

    auto* jobs =
        app.add_subcommand("jobs", "Cluster jobs of a project: status, merge, cancel, resubmit (docs/CLUSTER.md)");
    jobs->require_subcommand(1);
    auto addCommon = [&](CLI::App* c) {
        c->add_option("project", args->project, "the .dpmix project the jobs belong to")->required();
        c->add_option("--job", args->job, "one job id (a folder of PROJECT.jobs/), or a job directory");
    };
    auto* status = jobs->add_subcommand("status", "State of each job's units (result files, squeue/sacct)");
    addCommon(status);
    status->add_flag("--json", args->json, "print JSON");
    status->callback([&ctx, args] { ctx.exitCode = executeStatus(*args); });
    auto* merge = jobs->add_subcommand(
        "merge", "Store finished jobs in the project (idempotent; exit 3 while a job waits for units)");
    addCommon(merge);
    merge->add_flag("--json", args->json, "print JSON");
    merge->add_flag("--keep-job-files", args->keepJobFiles,
                    "keep each merged job's folder (by default it is deleted once every unit is stored: it holds data "
                    "derived from the sensitive data)");
    merge->callback([&ctx, args] { ctx.exitCode = executeMerge(*args); });
    auto* cancel = jobs->add_subcommand("cancel", "scancel a job (or one unit's array task)");
    addCommon(cancel);
    cancel->add_option("--unit", args->unit, "only this unit's array task");
    cancel->callback([&ctx, args] { ctx.exitCode = executeCancel(*args); });
    auto* resubmit = jobs->add_subcommand("resubmit", "Submit the failed units of a job again (one sbatch array)");
    addCommon(resubmit);
    resubmit->add_option("--max-parallel", args->maxParallel, "array tasks at once (default: the job's)");
    resubmit->callback([&ctx, args] { ctx.exitCode = executeResubmit(*args); });
}

}  // namespace dpmix::cli
