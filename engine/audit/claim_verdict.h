#pragma once
// What the stored audits say of a mechanism's claimed (ε, δ) — shown beside its ledger entries
// (docs/AUDIT.md, "Verdicts"). The verdict is recomputed from the stored error counts every time,
// never read from a stored ε_LB or a typed-in flag:
//   - refuted: an audit of the same mechanism at the same claimed (ε, δ) gives ε_LB > ε (ε_LB is
//     a lower bound at the audit's confidence, 95% by default, so the claim is refuted at that
//     confidence);
//   - not refuted: audits at that claim exist, none gives ε_LB > ε (the best ε_LB is shown: an
//     audit can refute a claim, never establish it);
//   - not audited: no audit at that claim. Audits of the same mechanism that refuted a different
//     claim are reported beside it, since they show the mechanism's analysis failing somewhere.
#include "engine/privacy/audit_bound.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/one_run_bound.h"

#include <optional>
#include <string>
#include <vector>

namespace dpmix::audit {

/// One stored audit of a mechanism, as the project holds it.
struct StoredMechanismAudit {
    long long runId = 0;
    std::string name;       // the audit record's name, e.g. "finetune-dirichlet-large-norm"
    std::string mechanism;  // "dirichlet", "dp-sgd"
    double claimedEpsilon = 0.0;
    double delta = 0.0;
    double confidence = 0.95;
    privacy::AuditCounts counts;
    // A one-run audit (details "kind": "one-run"): m, r and v from its details. Its ε_LB is
    // privacy::oneRunEpsilonLowerBound of them (one comparison: k₊ = k₋ fixed in advance), and
    // `counts` must be the confusion matrix of its guesses (r = N0 + N1, v = r − FP − FN) —
    // a record where the two disagree is not evidence.
    std::optional<privacy::OneRunCounts> oneRun;
};

enum class ClaimStatus { NotAudited, NotRefuted, Refuted };

struct AuditEvidence {
    long long runId = 0;
    std::string name;
    double claimedEpsilon = 0.0;
    double epsilonLB = 0.0;  // recomputed from the counts
};

struct ClaimVerdict {
    ClaimStatus status = ClaimStatus::NotAudited;
    int audits = 0;                                 // audits at this claim
    std::optional<AuditEvidence> strongest;         // the highest ε_LB at this claim
    std::optional<AuditEvidence> refutedElsewhere;  // NotAudited/NotRefuted: a refuted other claim
};

/// The verdict on `mechanism` claiming (ε, δ), from `audits` (any mechanism; others are ignored).
/// Claims match when ε and δ agree to 1e-6 relative: a run's ledger records the ε its calibrated
/// r or σ reaches, which meets the target to about 1e-12, and the audit records the target.
ClaimVerdict claimVerdict(const std::string& mechanism, double claimedEpsilon, double delta,
                          const std::vector<StoredMechanismAudit>& audits);

/// The audit of a mechanism that a stored audit record describes: its details JSON names a
/// "mechanism" and its "claimed_epsilon" (a training audit, engine/training_audit), and for
/// "kind": "one-run" also the integers "canaries", "guesses" and "correct". Nothing for a mixture
/// audit, a non-private control or details that do not parse.
std::optional<StoredMechanismAudit> mechanismAuditFrom(long long runId, const std::string& name,
                                                       const std::string& detailsJson,
                                                       const privacy::AuditCounts& counts, double delta,
                                                       double confidence);

/// The mechanism name a ledger entry's verdict is looked up under: "dirichlet" for a Dirichlet
/// entry, "dp-sgd" for a fine-tuning Gaussian entry, "" for entries no training audit covers.
std::string auditedMechanismOf(const privacy::LedgerEntry& entry);

/// The verdict to show beside a ledger entry: always for the Dirichlet mechanism (whose ε is
/// claimed, not established), for other entries only when some audit speaks to them.
std::optional<ClaimVerdict> entryVerdict(const privacy::LedgerEntry& entry,
                                         const std::vector<StoredMechanismAudit>& audits);

/// One line per distinct claim among `entries` that a verdict speaks to (entryVerdict), for a
/// project's summary: "Dirichlet mechanism at ε = 1, δ = 1e-05: claim refuted by audit (…)".
std::vector<std::string> claimVerdictLines(const std::vector<privacy::LedgerEntry>& entries,
                                           const std::vector<StoredMechanismAudit>& audits);

/// Why a run with this ledger cannot be released as a DP result: the first entry whose claim a
/// stored audit refuted ("its finetune mechanism: claim refuted by audit (…)"); nothing when
/// no claim is refuted. A refuted guarantee is known not to hold, so no confirmation lifts it.
std::optional<std::string> refutedClaim(const std::vector<privacy::LedgerEntry>& entries,
                                        const std::vector<StoredMechanismAudit>& audits);

/// One line for a ledger view: "claim refuted by audit (ε_LB = 5.12 > ε = 4; audit run #7)",
/// "claimed, not refuted (best ε_LB = 0.31 in 2 audits; audit run #5)", "claimed, not audited".
std::string describe(const ClaimVerdict& verdict, double claimedEpsilon);

}  // namespace dpmix::audit
