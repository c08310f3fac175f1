#pragma once
// The files of a cluster job directory as read back (docs/CLUSTER.md): job.json, the frozen spec,
// the unit list, the submissions, each unit's checked result, and the state of every unit. Shared
// by the submission side (cluster_jobs.cpp) and the merge (cluster_merge.cpp); not a public API.
#include "engine/core/result.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/project/project_file.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::executor::cluster {

inline constexpr const char* kJobFormat = "dpmix-cluster-job/1";
inline constexpr const char* kUnitFormat = "dpmix-unit-result/1";

// A job directory as read back.
struct Job {
    std::filesystem::path dir;
    nlohmann::json meta;   // job.json
    std::string spec;      // spec.json's text
    nlohmann::json units;  // units.json
    std::vector<nlohmann::json> submissions;
    std::string id() const { return meta.value("job_id", dir.filename().string()); }
};

std::string utcStamp();
std::string checksumOf(const nlohmann::json& body);
std::string projectSpecHash(const project::ProjectFile& project);

/// job.json, spec.json (against its hash), units.json and submissions.jsonl, checked.
Result<Job> readJob(const std::filesystem::path& dir);
/// The named job, or every job of the project (sorted by id) when `jobId` is empty.
Result<std::vector<Job>> readJobs(const std::filesystem::path& projectFile, const std::string& jobId);

std::filesystem::path unitResultPath(const std::filesystem::path& dir, long long unit);
/// A unit's result file checked: format, job, spec hash, unit id and checksum.
Result<nlohmann::json> readUnitResult(const Job& job, long long unit);

/// Every unit's state: its result file, else what Slurm says, else what dpmix cancelled.
JobStatus statusOf(const Job& job);

/// The log line that marks a project's run as merged from this job.
std::string provenanceLine(const Job& job);
/// The done run merged from this job before, if any.
std::optional<long long> runFromJob(const project::ProjectFile& project, const Job& job);
/// An error naming both projects when the job was made for another one.
Status checkJobBelongs(const project::ProjectFile& project, const Job& job);

}  // namespace dpmix::executor::cluster
