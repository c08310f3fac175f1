#pragma once
// A .dpmix project file: one SQLite file (WAL mode) holding a study's spec, its registered
// sources, runs, privacy ledgers and results. Every write is one transaction, so a process
// killed mid-run leaves the last committed state. Results and ledgers are hash-chained
// (hash_chain.h); model weights live next to the file, named by content hash.
//
// Not thread-safe: use one ProjectFile per thread (SQLite's WAL lets readers and one writer
// in other connections or processes work at the same time).
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/project/hash_chain.h"
#include "engine/project/project_records.h"
#include "engine/project/project_spec.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace dpmix::project {

class Database;

/// True when the file starts with the SQLite header (it may still not be a dpmix project).
bool isSqliteFile(const std::filesystem::path& file);

class ProjectFile {
public:
    /// Creates `file` from a validated spec and the facts of its sources (public sources in
    /// spec order, then the sensitive one). Checks the tasks' class names and user-level data
    /// against the facts. The file is built under a temporary name and renamed, so on any
    /// error nothing is left behind. An existing file is an error unless `replace`.
    static Result<ProjectFile> create(const std::filesystem::path& file, const ProjectSpec& spec,
                                      const std::vector<SourceFacts>& facts, bool replace = false);

    /// Opens an existing project, migrating an older schema forward (in one transaction).
    /// Refuses, without writing anything, a file that is not SQLite, not a dpmix project, or
    /// from a newer schema.
    static Result<ProjectFile> open(const std::filesystem::path& file);

    ProjectFile(ProjectFile&&) noexcept;
    ProjectFile& operator=(ProjectFile&&) noexcept;
    ~ProjectFile();

    const std::filesystem::path& path() const { return path_; }
    /// The stored spec (paths as written; SpecSource::resolved is empty).
    const ProjectSpec& spec() const { return spec_; }
    const std::string& specJson() const { return specJson_; }
    const std::string& createdAt() const { return createdAt_; }
    const std::string& createdBy() const { return createdBy_; }  // dpmix version
    /// Where model weights are kept: <dir>/<stem>.models/.
    std::filesystem::path modelsDir() const;

    Result<std::vector<SourceRecord>> sources() const;

    // Runs.
    Result<long long> addRun(const NewRun& run);  // status queued; returns the run id
    /// queued → running | cancelled | failed; running → done | failed | cancelled. Sets
    /// started_at / finished_at. Any other transition is an error.
    Result<RunRecord> setRunStatus(long long runId, RunStatus status, const std::string& message = "");
    Result<RunRecord> run(long long runId) const;
    Result<std::vector<RunRecord>> runs() const;

    // Privacy ledger (JSON of engine/privacy/ledger_json.h). `reportedEpsilon` is the total the
    // run reported; when absent, the ledger's own total at the time of recording.
    Result<long long> recordLedger(long long runId, const privacy::Ledger& ledger,
                                   std::optional<double> reportedEpsilon = std::nullopt);
    Result<std::vector<LedgerRecord>> ledgers(long long runId) const;

    // Results. Each call is one transaction; the returned value is the new row id (or count).
    Result<long long> addLambda(const LambdaRecord& lambda);
    Result<long long> addMetrics(const std::vector<MetricRecord>& metrics);
    Result<long long> addCurve(long long runId, const std::string& name, const std::vector<CurvePoint>& points);
    Result<long long> addAudit(const AuditRecord& audit);
    Result<long long> addLog(long long runId, const std::string& level, const std::string& message);
    /// Writes the bytes to modelsDir()/<sha256>.bin (once) and records it for the run.
    Result<ModelRecord> storeModel(long long runId, const std::string& name, const std::string& bytes);

    Result<std::vector<LambdaRecord>> lambdas(long long runId) const;
    Result<std::vector<MetricRecord>> metrics(long long runId) const;
    Result<std::vector<std::string>> curveNames(long long runId) const;
    Result<std::vector<CurvePoint>> curve(long long runId, const std::string& name) const;
    Result<std::vector<AuditRecord>> audits(long long runId) const;
    Result<std::vector<LogRecord>> logs(long long runId) const;
    Result<std::vector<ModelRecord>> models(long long runId) const;
    /// Reads a stored model's bytes, checking them against the recorded content hash.
    Result<std::string> loadModel(const ModelRecord& model) const;

    /// Recomputes the hash chain; reports the first row whose hash does not match.
    Result<ChainVerification> verifyChain() const;

private:
    ProjectFile(std::filesystem::path path, std::unique_ptr<Database> db);
    Result<bool> loadSpec();

    std::filesystem::path path_;
    std::unique_ptr<Database> db_;
    ProjectSpec spec_;
    std::string specJson_, createdAt_, createdBy_;
};

/// Current UTC time as ISO 8601 with milliseconds, e.g. "2026-11-29T07:50:00.123Z".
std::string utcTimestamp();

}  // namespace dpmix::project
