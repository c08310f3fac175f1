#pragma once
// How a one-run audit of a study's fine-tuning is stored (one_run_audit_stage.h): the run's config
// JSON, its one NonPrivate ledger entry, the AuditRecord the verdict reads and the metrics.
//
// The record's counts are the confusion matrix of the guesses made (abstentions left out):
// positives / negatives = guessed canaries that were / were not included, false positives =
// "in" guesses on excluded canaries, false negatives = "out" guesses on included ones. So
// r = positives + negatives and v = r − FP − FN; the details repeat m, r and v, and
// audit::mechanismAuditFrom recomputes ε_LB from them (oneRunEpsilonLowerBound), never from the
// stored ε_LB.
#include "engine/audit_runs/one_run_audit_stage.h"
#include "engine/core/result.h"
#include "engine/privacy/audit_bound.h"
#include "engine/privacy/one_run_guesses.h"
#include "engine/project/project_file.h"

#include <cstdint>
#include <span>
#include <string>

namespace dpmix::audit_runs {

/// The run's configuration as JSON (every resolved setting).
std::string oneRunConfigJson(const OneRunAuditStageOptions& options, const OneRunAuditStageReport& report);

/// The guesses' confusion matrix (see above).
privacy::AuditCounts oneRunConfusion(const privacy::OneRunGuesses& guesses, std::span<const std::uint8_t> included);

/// Stores the ledger entry, the AuditRecord (counts as oneRunConfusion) and the metrics.
Status storeOneRunAudit(project::ProjectFile& project, const OneRunAuditStageReport& report,
                        const privacy::AuditCounts& counts, const std::string& device);

}  // namespace dpmix::audit_runs
