#pragma once
// `dpmix run`'s grid as independent work units (docs/CLUSTER.md, "The run grid"): one unit per
// seed. A unit runs the ordinary runStudy with that one seed on its own scratch copy of the
// project (made at submission, the proxy already in it), and the merge copies the runs the unit
// added into the project through ProjectFile's normal API, so the hash chain stays valid.
//
// A reproducible grid seeds every DP mechanism from the run seed, so a unit's runs are the local
// run's, bit for bit, and running a unit again releases nothing new. A grid with secret
// randomness is a release: each attempt at a unit draws new noise, so each reserves its releases
// in the data owner's budget store before it runs (unit_attempts.h; docs/CLUSTER.md, "Secret runs").
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace dpmix::executor {

/// Checks the options for a cluster run (an image study), obtains the study's proxy in `project`
/// exactly as a local run would first, reserves the whole grid's releases, and returns the frozen
/// run: the options, stage values included, as JSON (numbers as the hex of their IEEE-754 bits),
/// the project's last run id, after which a unit's runs begin, the reservation and — with secret
/// randomness — the unit budget its attempts reserve with (unit_attempts.h).
Result<std::string> freezeStudyRun(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                                   const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                   const pipeline::LogSink& log = {});

/// Settles the reservation a frozen run holds when its job was never submitted (sbatch refused
/// it, the job folder was removed): nothing can run under it, so it no longer counts.
Status releaseUnsubmittedRun(project::ProjectFile& project, const std::string& frozenJson);

/// One unit per seed (resolveRunChoices(spec, options).seeds: what freezeStudyRun freezes), in
/// the order a local run takes them; params {"seed": s}.
std::vector<cluster::WorkUnit> studyRunWorkUnits(const std::vector<std::uint64_t>& seeds);

/// Copies the project as it is now (its file and write-ahead log; its models folder as hard
/// links where the file system allows) into <jobDir>/snapshot/: what every unit starts from.
Status snapshotProject(const project::ProjectFile& project, const std::filesystem::path& jobDir);

/// The worker: runs the unit's seed with runStudy on a fresh scratch copy of the snapshot,
/// <jobDir>/work/unit-N/attempt-…/ (one folder per attempt), and returns the unit's result (JSON): the scratch file,
/// its SHA-256, and the ids of the runs the unit added. With secret randomness the attempt is reserved first; refused,
/// nothing runs.
Result<std::string> runStudyUnit(const std::filesystem::path& jobDir, const std::string& frozenJson, long long unit,
                                 std::uint64_t seed);

/// A unit that stores runs (the run grid's, a sweep's): runs `body` on a fresh scratch copy of
/// the snapshot, <jobDir>/work/unit-N/attempt-<128 random bits>/, and returns the unit's result
/// (JSON): the scratch file, its SHA-256 and the ids of the runs `body` added after `afterRun` —
/// what importStudyUnit merges. Each call has a folder of its own, so attempts of one unit that
/// overlap in time never touch each other's scratch project.
Result<std::string> runOnScratchCopy(const std::filesystem::path& jobDir, long long unit, long long afterRun,
                                     const std::function<Status(project::ProjectFile&)>& body);

/// The project's last run id (0 without runs): a unit's runs are those after it.
Result<long long> lastRunId(const project::ProjectFile& project);

/// The merge of one unit: checks the scratch file against the result's SHA-256, then adds each
/// of the unit's runs to `project` — run row, ledgers, λ records, metrics, curves, audits,
/// models, logs, and `provenance + " run R"` as an info log line — unless a finished run of the
/// project already carries that line (a unit is never imported twice). Returns the new run ids.
Result<std::vector<long long>> importStudyUnit(project::ProjectFile& project, const std::filesystem::path& jobDir,
                                               const std::string& resultJson, const std::string& provenance);

}  // namespace dpmix::executor
