#pragma once
// The mixture audit as independent work units (docs/CLUSTER.md): the audit's inputs are frozen
// once (split A through the proxies, the mechanism's settings, the canary), a unit is a block of
// runs of one world, and the audit is finished from all units' scores exactly as runAuditStage
// finishes it — the same seeds (seeds::derive(seed, world, run)), so the stored run is the local
// one, bit for bit.
//
// The frozen spec is a JSON text (numbers as the hex of their IEEE-754 bits); a worker needs
// nothing else: no project, no proxy, no LibTorch call.
#include "engine/audit/canary_audit.h"
#include "engine/audit_runs/audit_stage.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/project/project_file.h"

#include <string>
#include <vector>

namespace dpmix::executor {

/// Loads the study (reusing or training its proxy, as runAuditStage), and returns the audit's
/// frozen spec. Writes nothing to the project but what prepareStudy stores (a trained proxy).
Result<std::string> freezeAuditStage(project::ProjectFile& project, const audit_runs::AuditStageOptions& options,
                                     const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                     const pipeline::LogSink& log = {});

/// R: the frozen audit's runs per world.
Result<long long> frozenAuditRunsPerWorld(const std::string& frozenJson);

/// One unit: runs [begin, end) of the "in" or "out" world of the frozen audit.
Result<audit::CanaryAuditBlock> runFrozenAuditUnit(const std::string& frozenJson, bool in, long long begin,
                                                   long long end, int threads, const ProgressCallback& progress = {},
                                                   const CancellationToken& cancel = {});

/// The merge: finishes the audit from blocks covering every run of both worlds once, and
/// stores it as runAuditStage does (one run of method "audit", its ledger, record and
/// metrics), with `provenance` as an info log line of the run.
Result<audit_runs::AuditStageReport> storeFrozenAudit(project::ProjectFile& project, const std::string& frozenJson,
                                                      const std::vector<audit::CanaryAuditBlock>& blocks,
                                                      const std::string& provenance);

}  // namespace dpmix::executor
