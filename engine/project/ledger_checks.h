#pragma once
// Every ledger of a project re-verified by a reading command, not only when a reviewer asks:
// each entry's ε recomputed from its parameters (q, σ, steps, δ) with the accountant it records
// (privacy::Ledger::verify), the recorded total against the recomputed one, and the ledger
// against what the spec and the run itself state — entries accounted at a δ above the spec's,
// and a σ or ε a run reported in its metrics that its ledger does not hold. An ε edited inside a
// ledger, or a σ, is then reported even when whoever edited it recomputed the hash chain.
#include "engine/project/project_file.h"

#include <string>
#include <vector>

namespace dpmix::project {

/// The discrepancies of every ledger of `project`, one sentence each ("run 3: ..."); empty when
/// every ledger verifies. An Error only when the file cannot be read.
Result<std::vector<std::string>> checkLedgers(const ProjectFile& project);

}  // namespace dpmix::project
