#pragma once
// The trust boundary of a project file (docs/PRIVACY.md, "Trust boundary"): a file either holds
// only what a DP guarantee covers — DP releases and artefacts of public data — or it also holds
// non-private results of the sensitive data (λ*, Random Search's choice, non-private
// baselines, test metrics, audits, the sensitive data's content hash, ...), and must stay
// inside the data owner's trust boundary. One classification of every stored artefact, used by
// the verdict and by the release export, so that the two can never disagree.
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"

#include <optional>
#include <string>
#include <vector>

namespace dpmix::project {

/// What a stored artefact is, as far as sharing it goes.
enum class Disclosure {
    DpRelease,   // an output of a DP mechanism, or a figure set by public parameters (σ, ε spent)
    Public,      // computed from public data only (proxies, the tokenizer, uniform λ)
    TestMetric,  // a metric of the sensitive test split: no ledger covers it
    NonPrivate,  // a statistic of the sensitive data that no ledger covers
};

Disclosure classifyLambda(const std::string& kind);
Disclosure classifyMetric(const std::string& name);
Disclosure classifyCurve(const std::string& name);

/// A run that touched no sensitive data: trained on public data only.
bool isPublicOnlyMethod(const std::string& method);

/// How a run's outputs are covered: DpRelease when its last ledger is private, established or
/// not, and drew secret randomness; NonPrivate when the ledger has ε = ∞, the randomness was
/// seeded (regenerable from the stored seed) or the run is an audit or experiment; Public for
/// runs on public data only. `ledger` is the run's last ledger (none: the run recorded none).
Disclosure classifyRun(const RunRecord& run, const std::optional<privacy::Ledger>& ledger);

struct TrustVerdict {
    bool release = false;                      // the file is an exported DP release (release_manifest.h)
    bool dpOnly = false;                       // nothing non-private: only DP releases and public artefacts
    std::vector<std::string> nonPrivate;       // what it holds that no guarantee covers, one phrase each
    std::vector<std::string> nonPrivateKinds;  // the same phrases without their runs and names
    bool testMetrics = false;                  // a release that includes test metrics at the user's request
    bool unestablished = false;                // a release includes a mechanism whose guarantee is only claimed
    double epsilon = 0.0;                      // the composed guarantee of its DP releases (project_budget.h)
    double delta = 0.0;
    long long releases = 0;
    std::string unit;  // "examples" or "users"
    /// What the integrity check found (integrity_report.h): an altered file's verdict says so
    /// first, whatever it holds. Empty when everything verifies.
    std::vector<std::string> integrityProblems;
    std::vector<std::string> integrityNotices;  // what could not be checked (an older file)
    std::vector<std::string> signatures;        // who signed, and whether it verifies

    /// One line: "keep inside the data owner's trust boundary: ..." or "contains only DP releases
    /// at (ε, δ) = ..." (with "DP release: " in front for an exported release), after
    /// "ALTERED: ..." when the file does not verify.
    std::string headline() const;
    /// The same without the integrity part: what the file holds, as it is stored.
    std::string contentHeadline() const;
    /// The short form for a title bar: "DP release (ε 1.00)", "non-private results: keep inside".
    std::string shortLabel() const;
};

/// Reads every table of the file, checks its integrity and classifies what it holds.
Result<TrustVerdict> trustVerdict(const ProjectFile& project);

}  // namespace dpmix::project
