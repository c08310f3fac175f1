#pragma once
// A .dpmix project file: one SQLite file (WAL mode) holding a study's spec, its registered
// sources, runs, privacy ledgers and results. Every write is one transaction, so a process
// killed mid-run leaves the last committed state. Results and ledgers are hash-chained
// (hash_chain.h); model weights live next to the file, named by content hash.
//
// Not thread-safe: use one ProjectFile per thread (SQLite's WAL lets readers and one writer
// in other connections or processes work at the same time).
//
// Several processes (two `dpmix run`, the workbench and the CLI) may use one file at once:
// creation is atomic (a new file is published with a no-replace rename under a folder lock,
// so a second creator opens the first one's file instead of replacing it), every write is one
// BEGIN IMMEDIATE transaction that waits for the lock (Database::kDefaultBusyTimeoutMs) and
// then fails with "project busy: ..." rather than dropping anything. Opening read-write marks
// runs whose process is gone as interrupted and removes temporary files of dead processes
// (docs/PROJECT_FILE.md, docs/RELIABILITY.md).
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/project/hash_chain.h"
#include "engine/project/integrity_report.h"
#include "engine/project/owner_key.h"
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

enum class OpenMode {
    Auto,       // read-write when the file and its folder are writable, else read-only
    ReadWrite,  // an error when the file or its folder is not writable
    ReadOnly,   // never writes: no migration, no recovery; every write call returns an error
};

class ProjectFile {
public:
    /// Creates `file` from a validated spec and the facts of its sources (public sources in
    /// spec order, then the sensitive one). Checks the tasks' class names and user-level data
    /// against the facts. The file is built under a temporary name and renamed, so on any
    /// error nothing is left behind. An existing file is an error unless `replace`.
    /// Publishing is atomic: a file that appears while this call builds its own is never
    /// replaced (unless `replace`), whoever created it.
    static Result<ProjectFile> create(const std::filesystem::path& file, const ProjectSpec& spec,
                                      const std::vector<SourceFacts>& facts, bool replace = false);

    /// Create-if-absent for `dpmix run SPEC.json`: creates `file` as create() does, or, when it
    /// exists (or another process publishes it first), opens it and checks that it was made
    /// from the same spec (an error otherwise). `created` tells which happened.
    static Result<ProjectFile> createOrOpen(const std::filesystem::path& file, const ProjectSpec& spec,
                                            const std::vector<SourceFacts>& facts, bool* created = nullptr);

    /// Opens an existing project. Read-write: migrates an older schema forward (in one
    /// transaction), marks queued/running runs whose process is gone as interrupted (their
    /// ledgers stay) and removes temporary files left by dead processes. Read-only (a read-only
    /// file or folder with OpenMode::Auto, or OpenMode::ReadOnly): changes nothing, so it works
    /// on a reviewer's read-only copy; a schema-1 file needs its migration and is refused.
    /// Refuses, without writing anything, a file that is not SQLite, not a dpmix project, or
    /// from a newer schema.
    static Result<ProjectFile> open(const std::filesystem::path& file, OpenMode mode = OpenMode::Auto);

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
    /// Opened read-only: every write call returns an error saying so.
    bool readOnly() const { return readOnly_; }
    /// A DP release made by `dpmix export-release` (release_export.h): always read-only. Its
    /// manifest (release_manifest.h) as stored; empty for a project.
    bool isRelease() const { return !releaseManifestJson_.empty(); }
    const std::string& releaseManifestJson() const { return releaseManifestJson_; }
    /// Runs this open marked interrupted (their process had ended without finishing them).
    const std::vector<long long>& interruptedOnOpen() const { return interruptedOnOpen_; }
    /// Temporary files of dead processes this open removed (names relative to the folder).
    const std::vector<std::string>& removedTemporaryFiles() const { return removedTemporaryFiles_; }
    /// How long a write waits for another process's transaction before "project busy".
    void setBusyTimeout(int milliseconds);

    Result<std::vector<SourceRecord>> sources() const;

    // Runs.
    Result<long long> addRun(const NewRun& run);  // status queued; returns the run id
    /// queued → running | cancelled | failed | interrupted; running → done | failed | cancelled |
    /// interrupted. Sets started_at / finished_at. Any other transition is an error. `done` is
    /// refused (and the run marked failed) when the run has a non-finite result stored (a NULL
    /// metric or λ weight, a ledger without a finite-or-∞ ε); running records this process as
    /// the run's owner.
    Result<RunRecord> setRunStatus(long long runId, RunStatus status, const std::string& message = "");
    Result<RunRecord> run(long long runId) const;
    Result<std::vector<RunRecord>> runs() const;

    // Privacy ledger (JSON of engine/privacy/ledger_json.h). `reportedEpsilon` is the total the
    // run reported; when absent, the ledger's own total at the time of recording.
    Result<long long> recordLedger(long long runId, const privacy::Ledger& ledger,
                                   std::optional<double> reportedEpsilon = std::nullopt);
    Result<std::vector<LedgerRecord>> ledgers(long long runId) const;

    // Results. Each call is one transaction; the returned value is the new row id (or count).
    // λ weights, metric values and model weights must be finite: a NaN or ±∞ is refused with
    // an error naming it, and the run (if queued or running) is marked failed, never done.
    Result<long long> addLambda(const LambdaRecord& lambda);
    Result<long long> addMetrics(const std::vector<MetricRecord>& metrics);
    Result<long long> addCurve(long long runId, const std::string& name, const std::vector<CurvePoint>& points);
    Result<long long> addAudit(const AuditRecord& audit);
    Result<long long> addLog(long long runId, const std::string& level, const std::string& message);
    /// Writes the bytes to modelsDir()/<sha256>.bin (once) and records it for the run. The file
    /// is written under a temporary name, synced and renamed; a failed write (a full disk)
    /// removes the temporary file and returns an error. Opaque bytes (a tokenizer).
    Result<ModelRecord> storeModel(long long runId, const std::string& name, const std::string& bytes);
    /// Model weights: refused when one is not finite, else stored as storeModel does (native
    /// float layout, as pipeline::floatsToBytes writes them).
    Result<ModelRecord> storeWeights(long long runId, const std::string& name, const std::vector<float>& weights);

    Result<std::vector<LambdaRecord>> lambdas(long long runId) const;
    Result<std::vector<MetricRecord>> metrics(long long runId) const;
    Result<std::vector<std::string>> curveNames(long long runId) const;
    Result<std::vector<CurvePoint>> curve(long long runId, const std::string& name) const;
    Result<std::vector<AuditRecord>> audits(long long runId) const;
    Result<std::vector<LogRecord>> logs(long long runId) const;
    Result<std::vector<ModelRecord>> models(long long runId) const;
    /// Reads a stored model's bytes, checking them against the recorded content hash.
    Result<std::string> loadModel(const ModelRecord& model) const;

    // Working settings (working_settings.cpp): the settings a user saved for the next run — the
    // workbench's panel values as one JSON object — kept beside the spec, outside the hash chain
    // (a draft, not a result: each run records the configuration it really used).
    /// Replaces the stored settings in one transaction; refused for anything but a JSON object
    /// and for a read-only file or release (the file is then unchanged).
    Status saveWorkingSettings(const std::string& settingsJson);
    /// The stored settings, or nullopt when none were saved (or the file predates schema v5).
    Result<std::optional<std::string>> workingSettings() const;

    /// Recomputes the hash chain; reports the first row whose hash does not match.
    Result<ChainVerification> verifyChain() const;

    /// Everything a reading command checks (integrity_report.h): chain, seal, run history,
    /// ledgers against their parameters and the spec, model files (on request), signatures.
    Result<IntegrityReport> verifyIntegrity(const IntegrityOptions& options = {}) const;

    /// Adds the owner's signature over the file as it is now (file_signature.h). Refused for a
    /// read-only file, a release (signed when exported) and a file altered outside dpmix.
    Status sign(const OwnerKeyPair& key);

private:
    enum class IfExists { Fail, Replace, Open };
    static Result<ProjectFile> createImpl(const std::filesystem::path& file, const ProjectSpec& spec,
                                          const std::vector<SourceFacts>& facts, IfExists ifExists, bool* created);
    static Result<ProjectFile> openExisting(const std::filesystem::path& file, const ProjectSpec& spec);
    ProjectFile(std::filesystem::path path, std::unique_ptr<Database> db, bool readOnly);
    Status loadSpec();
    void loadReleaseManifest();  // release_manifest.cpp
    Status refuseWrite(const std::string& action) const;
    void recoverInterruptedRuns();
    void removeStaleTemporaryFiles();
    Error refuseNonFinite(long long runId, const std::string& what);
    std::string runOwnerColumns() const;  // the owner columns to read, when the file has them

    std::filesystem::path path_;
    std::unique_ptr<Database> db_;
    bool readOnly_ = false;
    ProjectSpec spec_;
    std::string specJson_, createdAt_, createdBy_;
    std::string releaseManifestJson_;
    std::vector<long long> interruptedOnOpen_;
    std::vector<std::string> removedTemporaryFiles_;
    mutable int hasRunOwners_ = -1;  // -1: not checked yet
};

/// Current UTC time as ISO 8601 with milliseconds, e.g. "2026-11-29T07:50:00.123Z".
std::string utcTimestamp();

}  // namespace dpmix::project
