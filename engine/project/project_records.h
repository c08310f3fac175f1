#pragma once
// Plain values stored in and read back from a project file: source facts, runs and results.
#include "engine/data/source_kind.h"
#include "engine/privacy/audit_bound.h"
#include "engine/project/process_identity.h"
#include "engine/project/source_role.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dpmix::project {

/// What loading a source once told us (mirrors data::SourceSummary; app code converts between
/// the two).
struct SourceFacts {
    data::SourceKind kind = data::SourceKind::Images;
    long long examples = 0;
    std::vector<std::string> labelNames;  // images
    std::vector<std::string> domains;     // text
    long long users = 0;
    std::string contentHash;  // hex SHA-256 of the decoded examples
    int channels = 0, height = 0, width = 0;
};

/// A registered source as stored: role, loader, resolved path, options and facts.
struct SourceRecord {
    SourceRole role = SourceRole::Public;
    std::string name, loader, path;
    std::string optionsJson;
    bool userLevel = false;
    SourceFacts facts;
};

/// The sensitive source's record; nullptr while the project has none.
inline const SourceRecord* sensitiveSourceOf(const std::vector<SourceRecord>& sources) {
    for (const auto& s : sources)
        if (s.role == SourceRole::Sensitive) return &s;
    return nullptr;
}

/// A text study: its sensitive source holds text (read by perplexity, run by dpmix-text, never
/// beside LibTorch).
inline bool isTextStudy(const std::vector<SourceRecord>& sources) {
    const SourceRecord* sensitive = sensitiveSourceOf(sources);
    return sensitive && sensitive->facts.kind == data::SourceKind::Text;
}

/// The label count of each public source's images, in registration order (0 for text), for
/// ProjectSpec::mixtureComponents.
inline std::vector<std::size_t> publicLabelCounts(const std::vector<SourceRecord>& sources) {
    std::vector<std::size_t> counts;
    for (const auto& s : sources)
        if (s.role == project::SourceRole::Public)
            counts.push_back(s.facts.kind == data::SourceKind::Images ? s.facts.labelNames.size() : 0);
    return counts;
}

/// queued → running → done | failed | cancelled; interrupted: its process ended (killed,
/// crashed, out of disk) before it finished, found so when the project was next opened.
enum class RunStatus { Queued, Running, Done, Failed, Cancelled, Interrupted };
std::string toString(RunStatus status);
bool parseRunStatus(const std::string& text, RunStatus& out);

/// What identifies a run when it is queued.
struct NewRun {
    std::string method;             // e.g. "dp-mixmin", "uniform", "random-search", "non-private-mixmin"
    std::string task;               // sensitive task name ("" when the study has one task)
    std::optional<double> epsilon;  // target ε (none for non-private methods)
    long long seed = 0;
    std::string configJson = "{}";  // the resolved stage configuration, as JSON
};

struct RunRecord {
    long long id = 0;
    std::string method, task;
    std::optional<double> epsilon;
    long long seed = 0;
    std::string configJson;
    std::string buildVersion;                      // dpmix version that created the run
    std::string createdAt, startedAt, finishedAt;  // UTC ISO 8601; empty = not yet
    RunStatus status = RunStatus::Queued;
    std::string message;    // failure reason, cancellation note
    ProcessIdentity owner;  // the process that queued or last started it (pid 0: not recorded)
};

struct LedgerRecord {
    long long id = 0;
    long long runId = 0;
    std::string recordedAt;
    std::string ledgerJson;        // engine/privacy/ledger_json.h format
    double recordedEpsilon = 0.0;  // the total ε the run reported when it stored the ledger
    double recordedDelta = 0.0;
};

/// A mixture weight vector λ ("private", "non-private", "uniform", "random-search", ...).
struct LambdaRecord {
    long long runId = 0;
    std::string kind;
    std::vector<std::string> names;  // component names (public tasks or sources)
    std::vector<double> values;
};

struct MetricRecord {
    long long runId = 0;
    std::string name;       // e.g. "auc", "macro-auc", "perplexity"
    std::string className;  // "" for a whole-task metric
    double value = 0.0;
};

struct CurvePoint {
    long long step = 0;
    double value = 0.0;
};

struct AuditRecord {
    long long runId = 0;
    std::string name;  // e.g. "natural-canary"
    privacy::AuditCounts counts;
    double delta = 0.0;
    double confidence = 0.95;
    double epsilonLowerBound = 0.0;
    std::string detailsJson = "{}";
};

struct LogRecord {
    long long runId = 0;
    std::string at;
    std::string level;  // "info", "warning", "error"
    std::string message;
};

/// Model weights stored as <project>.models/<content hash>.bin next to the project file.
struct ModelRecord {
    long long runId = 0;
    std::string name;         // e.g. "pretrained", "finetuned"
    std::string contentHash;  // hex SHA-256 of the bytes
    std::string fileName;     // relative to the models folder
    long long bytes = 0;
};

}  // namespace dpmix::project
