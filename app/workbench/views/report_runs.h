#pragma once
// The study report's runs: one table row per run in the body, and each run's settings, metrics
// and privacy ledgers in an appendix, written compactly so a study of a few dozen runs prints in
// a few pages rather than a page per run. The ledgers' long texts (the accountant's references,
// the guarantee's assumptions), identical across most runs, are printed once as numbered notes
// that each ledger row points to.
#include "app/workbench/project/project_snapshot.h"

#include <QString>

namespace dpmix::workbench {

/// "Runs (N)": the pinned baseline and one row per run (method, task, ε, seed, status, the
/// ledger's composed ε and the Verify outcome).
QString reportRunsTableHtml(const ProjectSnapshot& project);

/// "Appendix A: each run in detail": the ledger notes, then per run its status line, settings,
/// metrics (per-class values grouped under their metric), ledger tables and Verify outcome.
QString reportRunDetailsHtml(const ProjectSnapshot& project);

}  // namespace dpmix::workbench
