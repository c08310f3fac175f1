#pragma once
// Which runs of a project File ▸ Export release… offers, and why the others are not offered
// (the engine's rules, engine/project/release_export.h, applied to the snapshot's ledgers).
#include "app/workbench/project/project_snapshot.h"

#include <QString>

#include <vector>

namespace dpmix::workbench {

struct ReleaseCandidate {
    long long runId = 0;
    QString label;             // "Run 7: DP-MixMin 'warm clothing' ε 1 seed 0"
    bool releasable = false;   // can be exported (maybe only with a recorded reason)
    bool needsReason = false;  // its guarantee is not established: a reason must be recorded
    QString why;               // why it cannot be exported, or why it needs a reason
};

std::vector<ReleaseCandidate> releaseCandidates(const ProjectSnapshot& project);

}  // namespace dpmix::workbench
