#pragma once
// Everything the workbench shows about a .dpmix project, read once on the GUI thread (a few
// thousand rows) so the tree and the result views draw from plain values and never hold the
// SQLite connection (ProjectFile is one-per-thread; the run job opens its own).
#include "engine/audit/claim_verdict.h"
#include "engine/core/result.h"
#include "engine/experiments/adamix_records.h"
#include "engine/methods/method_plan.h"
#include "engine/project/dataset_budget.h"
#include "engine/project/project_records.h"
#include "engine/project/project_spec.h"
#include "engine/project/result_summary.h"

#include <QString>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::workbench {

struct RunResults {
    project::RunRecord run;
    std::vector<project::LambdaRecord> lambdas;
    std::vector<project::MetricRecord> metrics;
    std::vector<project::LedgerRecord> ledgers;
    std::map<std::string, std::vector<project::CurvePoint>> curves;  // "lambda/<component>" ...
    std::vector<project::AuditRecord> audits;                        // canary audits (method "audit")
    std::vector<float> privateSet;             // a finished PSG run's S (its model "private-set"; shape in the config)
    std::vector<project::ModelRecord> models;  // the run's stored models: names and sizes, not their bytes

    /// The λ record of `kind` ("private", "non-private", "uniform", "random-search"), or null.
    const project::LambdaRecord* lambda(const std::string& kind) const;
    /// Whether the run finished (status done): the runs every view reads results from.
    bool done() const { return run.status == project::RunStatus::Done; }
    /// The first whole-task metric called `name`, or NaN.
    double metric(const std::string& name) const;
};

/// The file's trust verdict (engine/project/trust_verdict.h): what sharing the file shares.
struct TrustReading {
    bool known = false;        // false: it could not be computed (the message says why)
    bool release = false;      // an exported DP release (read-only)
    bool dpOnly = false;       // nothing non-private in it
    bool testMetrics = false;  // a release with test metrics the guarantee does not cover
    QString headline;          // "keep inside the data owner's trust boundary: ..." or "DP release: ..."
    QString summary;           // a short sentence for the banner (the headline is its tooltip)
    QString shortLabel;        // for the title bar
};

/// A finished AdaMix-R experiment run as read for the views: its cells, without the per-example
/// records (the views read those on demand), or why it could not be read.
struct AdamixReading {
    long long runId = 0;
    std::optional<experiments::StoredAdamixExperiment> experiment;
    QString error;
};

struct ProjectSnapshot {
    QString path;
    TrustReading trust;
    project::ProjectSpec spec;
    std::vector<project::SourceRecord> sources;
    std::vector<RunResults> runs;       // by run id
    QString workingSettingsJson;        // the settings File ▸ Save stored for the next run; empty: none
    std::vector<AdamixReading> adamix;  // the finished AdaMix-R experiments, by run id
    // The data set's budget store as read with the runs (project/dataset_budget.h): what every
    // project on the sensitive data spent. Unset, with the reason in budgetStoreError, when it
    // cannot be read; the budget is then this file's runs only, and says so.
    std::optional<project::StoreView> budgetStore;
    QString budgetStoreError;

    /// Task names in spec order ("" when the study has a single unnamed task).
    std::vector<std::string> taskNames() const;
    /// The run pinned as the baseline of comparisons (pinned_baseline.h), if it is in this project.
    std::optional<long long> pinnedBaselineRunId() const;
    /// The run with this id, or null.
    const RunResults* findRun(long long runId) const;
};

/// Opens `path` with engine/project and reads every run's results.
Result<ProjectSnapshot> loadProjectSnapshot(const QString& path);

/// The snapshot's stored audits of fine-tuning mechanisms (audit::mechanismAuditFrom over every
/// run's audit records): what the ledger view and the report judge claimed ε by.
std::vector<audit::StoredMechanismAudit> mechanismAudits(const ProjectSnapshot& project);

/// "dp-mixmin" → "DP-MixMin", "random-search" → "Random search", ... (engine/methods).
QString methodLabel(const std::string& method);
/// Whether a stored run is one of method `m`'s.
bool isMethod(const project::RunRecord& run, methods::Method m);
/// Whether a run's DP noise was seeded (reproducible, so never a release), as its last ledger says.
bool isSeededRun(const RunResults& run);

/// Every finished run's stored `metric` ("test-auc", "test-perplexity"), as project::storedResults
/// reads it from the project file: runs done with an ε, their first metric of that name for their
/// task or for no class — so the Summary's numbers are `dpmix results`'s.
std::vector<project::ResultObservation> storedResultsOf(const ProjectSnapshot& project, const std::string& metric);

}  // namespace dpmix::workbench
