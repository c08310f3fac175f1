#pragma once
// The projects this workbench opened read-only (--read-only, File ▸ Open read-only…). Every
// place that reopens a project to read it (the snapshot, the ledger checks) asks here how to open
// it, so that a read-only project is never opened for writing — before, the snapshot opened it
// read-write and marked runs interrupted, and a stray -wal beside it would have been replayed
// into it (docs/PROJECT_FILE.md, "Read-only open").
#include "engine/project/project_file.h"

#include <QString>

namespace dpmix::workbench {

/// Records that `path` is (or no longer is) open read-only in this workbench.
void setOpenedReadOnly(const QString& path, bool readOnly);

/// OpenMode::ReadOnly for a project opened read-only, else OpenMode::Auto.
project::OpenMode openModeFor(const QString& path);

}  // namespace dpmix::workbench
