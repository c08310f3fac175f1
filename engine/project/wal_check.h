#pragma once
// What lies beside a project file F before SQLite is let near it (docs/PROJECT_FILE.md, "Read-only open"). F-wal
// (its write-ahead log) holds commits not yet in F, and SQLite replays it into F when a read-write connection reads or
// closes, with no way to tell whether the -wal is F's: a -wal of another database left beside F (a copied or restored
// folder, a file renamed over another) was replayed into the project and destroyed it — 122,880 bytes became 8,192,
// every run and ledger gone. So:
//   * side files (-wal, -shm, -journal), when present, must be regular files — not links, FIFOs
//     or devices (SQLite would block on a FIFO, or write through a link);
//   * a -wal that a connection is using now (another process holds the lock every SQLite
//     connection keeps on its -shm, or this process has F open) is that connection's own;
//   * a -wal with content that nobody uses is a leftover: of a dpmix process killed while writing
//     (it belongs to F) or of another file (it does not). It is replayed into a private copy of F
//     first, and accepted only when the copy is a sound dpmix project (quick_check, application
//     id) that still holds the last row of every sealed table of F unchanged (dpmix never
//     deletes a row, so F's own log only adds rows or changes a run's status). Otherwise the open
//     is refused, F untouched, with what to do.
#include "engine/core/result.h"
#include "engine/project/sqlite_db.h"

#include <memory>
#include <string>

namespace dpmix::project {

struct SideFiles {
    bool walMode = true;        // F's header says WAL (a DP release keeps a rollback journal)
    bool walHoldsData = false;  // F-wal exists and is not empty
    bool journal = false;       // F-journal exists (a rollback journal SQLite would play back)
    bool live = false;          // a connection has F open now (another process, or this one)
};

/// Looks at F's header and side files; an Error (naming the file and what to do) when a side file
/// is not a regular file. Call it holding openRegistryLock().
Result<SideFiles> inspectSideFiles(const std::string& file);

/// Replays F's leftover -wal into a private copy and checks that it belongs to F (above). On
/// success, the copy with everything F and its -wal hold, opened read-only; it is removed when
/// closed. The Error says why the -wal is not F's and what to do. Call it holding
/// openRegistryLock().
Result<std::unique_ptr<Database>> replayLeftoverWalAside(const std::string& file);

}  // namespace dpmix::project
