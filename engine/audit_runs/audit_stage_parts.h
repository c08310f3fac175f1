#pragma once
// The parts of the mixture audit (audit_stage.cpp) that the audit as work units
// (engine/executor/audit_units.cpp) shares with it: split A's inputs, the mechanism and canary
// options built from them, the run's config and the stored results. A frozen audit is thawed
// into these and finished exactly as runAuditStage finishes the local one.
#include "engine/audit/canary_audit.h"
#include "engine/audit_runs/audit_stage.h"
#include "engine/core/result.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"
#include "engine/mixmin/user_groups.h"
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/study_runner.h"
#include "engine/privacy/accountant.h"
#include "engine/project/project_file.h"
#include "engine/project/project_spec.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::audit_runs {

// Split A of the audited task through the proxies: the objective the mechanism runs on, and at
// user level split A's users (Algorithm 2, exactly as the study runs it).
struct AuditInputs {
    std::size_t task = 0;
    pipeline::RhoSplit split;
    std::optional<mixmin::MixtureObjective> splitA;
    std::optional<mixmin::UserGroups> users;
    long long n = 0, units = 0, groupSize = 0;
};

Result<AuditInputs> auditInputs(const project::ProjectSpec& spec, const pipeline::PreparedStudy& prepared,
                                const AuditStageOptions& options);

/// The natural canary: one held-out image of split B, scored by the proxies.
Status addNaturalCanary(const pipeline::PreparedStudy& prepared, const AuditInputs& in,
                        const AuditStageOptions& options, audit::CanaryAuditOptions& ao, AuditStageReport& report);

/// The stored run's configuration JSON.
std::string auditConfigJson(const project::ProjectSpec& spec, const project::MixtureStage& mixture,
                            const AuditInputs& in, const AuditStageOptions& options, const std::string& name,
                            double epsilon);

/// The audit's ledger, record and metrics for the run `report.runId`.
Status storeAuditResults(project::ProjectFile& project, const AuditStageReport& report,
                         const std::vector<std::string>& componentNames, const AuditInputs& in,
                         const AuditStageOptions& options, double epsilon, privacy::Accountant accountant);

// What the local audit and a frozen one (a cluster job) share: the audit's options for
// engine/audit and its mechanism, from split A's inputs.
struct AuditSetup {
    double epsilon = 1.0;
    privacy::Accountant accountant = privacy::Accountant::Rdp;
    project::MixtureStage mixture;
    audit::CanaryAuditOptions ao;
    std::optional<mixmin::DpMixMinParams> params;
};

Result<AuditSetup> auditSetup(const project::ProjectSpec& spec, const AuditInputs& in,
                              const AuditStageOptions& options);

/// The mean and standard deviation of the in- and out-world scores into the report.
void putScoreSpread(AuditStageReport& report);

}  // namespace dpmix::audit_runs
