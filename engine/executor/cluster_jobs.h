#pragma once
// The executor seam (docs/CLUSTER.md): work a command does — the mixture audit's blocks of
// runs, dpmix run's seeds — as a list of independent work units with a deterministic id and seed, executed in
// this process (`local`, the default: the command's own code path) or as one Slurm job array
// (`slurm`).
//
// Kinds: "audit" (audit_units.h), "run", dpmix run's grid, one unit per seed (run_units.h), and
// "sweep", an ε or ρ sweep, one unit per sweep point (sweep_units.h).
// A Slurm job lives in a job directory next to the project, F.dpmix.jobs/<job-id>/:
//   job.json            what the job is: kind, the project's identity (spec hash, creation
//                       time), the frozen spec's hash, the Slurm options
//   spec.json           the frozen spec: everything a worker needs (no project access)
//   units.json          the unit list: id, seed, parameters
//   job.sbatch          the array script: each task runs `dpmix worker JOBDIR --unit $SLURM_ARRAY_TASK_ID`
//   submissions.jsonl   one line per sbatch call: the Slurm job id and the units it ran
//   units/unit-N.json   unit N's result: written once, atomically (temp + rename), with the
//                       frozen spec's hash, the unit id and a SHA-256 checksum
//   logs/unit-N.J.log   the array task's stdout and stderr (J: the Slurm job id)
//   merged.json         written after a merge: the run it stored
// Folders are 0700 and files 0600 (cluster_private_files.h); a job folder is deleted once every
// unit is stored, unless the merge is asked to keep it (MergeOptions).
// Workers never open the project: many nodes must not write one SQLite file over a network
// file system. `dpmix jobs merge` is the single writer; it is idempotent (the project itself
// records which job a run came from).
#include "engine/core/result.h"
#include "engine/executor/cluster_job_kind.h"
#include "engine/project/project_file.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::executor::cluster {

enum class ExecutorKind { Local, Slurm };
Result<ExecutorKind> parseExecutor(const std::string& text);  // "local" or "slurm"

/// One independent piece of work: id = its array index, seed = the seed its randomness derives
/// from, params = what it computes (kind-specific JSON).
struct WorkUnit {
    long long id = 0;
    std::uint64_t seed = 0;
    std::string paramsJson;
};

/// The audit's units: each world's R runs in `units / 2` contiguous blocks (out world first),
/// params {"world": "out"|"in", "begin": b, "end": e}; seed = the audit seed (a run's own seed
/// is seeds::derive(seed, world, run), whatever unit holds it). `units` must be even, 2..2R.
Result<std::vector<WorkUnit>> auditWorkUnits(long long runsPerWorld, long long units, std::uint64_t seed);

struct SlurmOptions {
    long long maxParallel = 0;  // %P of --array; 0: no limit
    std::string partition, time, account;
    int cpusPerTask = 1;
    int gpusPerTask = 0;
    std::string setup;    // shell lines run before the worker (e.g. "module load dpmix")
    std::string program;  // the dpmix the tasks run; empty: this process's executable
    // > 1: each array task asks for this many Slurm tasks, and srun runs the worker as every one
    // of them: the data-parallel ranks of its DP-SGD fine-tunings (distributed/slurm_ranks.h).
    int ranks = 1;
};

/// Whether this host can submit: sbatch on PATH (checked before any work is frozen).
Status checkCanSubmit();

/// The jobs folder of a project: <file>.jobs (F.dpmix → F.dpmix.jobs).
std::filesystem::path jobsRoot(const std::filesystem::path& projectFile);

/// The array script of a job (what --dry-run prints).
std::string sbatchScript(const std::filesystem::path& jobDir, const std::string& jobId, const SlurmOptions& options);

struct SubmitReport {
    std::string jobId;
    std::filesystem::path dir;
    std::string slurmJobId;  // empty for a dry run
    std::string script;
    std::string command;  // the sbatch command line
    long long units = 0;
};

/// Writes the job directory and submits one `sbatch --array=0-(N-1)%P`. Dry run: writes
/// nothing, returns the script and the command. Errors (no sbatch on PATH, sbatch refused or no
/// controller answered): the job directory is removed again, the project is untouched.
/// `populate`, when given, adds what the units need beyond the spec to the new job directory
/// (the run grid's project snapshot) before sbatch; its error removes the directory again.
Result<SubmitReport> submitJob(const project::ProjectFile& project, JobKind kind, const std::string& frozenSpec,
                               const std::vector<WorkUnit>& units, const SlurmOptions& options, bool dryRun,
                               const std::function<Status(const std::filesystem::path&)>& populate = {});

struct UnitStatus {
    long long id = 0;
    std::string state;       // done, corrupt, pending, running, failed, unknown
    std::string slurmState;  // as squeue/sacct print it (e.g. CANCELLED), when known
    std::string slurmJobId;  // of the latest submission holding the unit
    std::string log;         // the task's log file
    std::string detail;      // why corrupt, why unknown
};

struct JobStatus {
    std::string jobId, kind;  // kind: as job.json stores it (cluster_job_kind.h parses it)
    std::filesystem::path dir;
    std::optional<long long> mergedRun;
    std::vector<UnitStatus> units;
    std::string slurmNote;  // set when Slurm could not be asked (the states are then unknown)
    long long count(const std::string& state) const;
};

/// The state of every job of the project (or of `jobId`): unit result files first, then
/// sacct (when accounting is on) or squeue.
Result<std::vector<JobStatus>> jobStatus(const std::filesystem::path& projectFile, const std::string& jobId = {});

/// `dpmix worker`: runs one unit and writes its result file (an existing valid result is kept).
Status runWorkerUnit(const std::filesystem::path& jobDir, long long unit, int threads);

struct MergeReport {
    std::string jobId;
    JobKind kind = JobKind::Run;
    bool imported = false;            // this call stored the job's run
    bool alreadyMerged = false;       // an earlier merge did
    long long runId = 0;              // the audit's run
    std::vector<long long> runIds;    // a run grid or a sweep: the runs this call added
    std::vector<UnitStatus> waiting;  // units without a result (nothing is imported then)
    std::string summary;              // one line: what was stored (e.g. the audit's ε_LB)
    bool removed = false;             // the job folder was deleted (MergeOptions::removeJobFiles)
};

struct MergeOptions {
    /// Delete a job's folder once every unit of it is stored in the project (this merge or an
    /// earlier one): it holds data derived from the sensitive data (docs/CLUSTER.md). A job with
    /// units still missing is kept. `dpmix jobs merge` sets it unless --keep-job-files.
    bool removeJobFiles = false;
};

/// Merges finished jobs (all, or `jobId`) into the project: refuses a job directory of another
/// project (spec hash or creation time differ) and a corrupt unit result (nothing is stored).
/// A job with units still missing is reported in `waiting`; an audit's is left as it is (its
/// bound needs every run), a run grid's or a sweep's units done so far are stored up to the
/// first missing one (in unit order), the rest by a later merge.
Result<std::vector<MergeReport>> mergeJobs(project::ProjectFile& project, const std::string& jobId = {},
                                           const MergeOptions& options = {});

/// scancel of a job's Slurm jobs (all its submissions), or of one unit's array task.
Status cancelJob(const std::filesystem::path& projectFile, const std::string& jobId,
                 std::optional<long long> unit = {});

/// Resubmits the units that failed (not done, not pending or running): one sbatch --array=LIST.
Result<SubmitReport> resubmitFailed(const std::filesystem::path& projectFile, const std::string& jobId,
                                    std::optional<long long> maxParallel = {});

/// The one job id of the project when it has exactly one job, else an error listing them
/// (commands that act on one job accept it omitted then).
Result<std::string> onlyJob(const std::filesystem::path& projectFile);

}  // namespace dpmix::executor::cluster
