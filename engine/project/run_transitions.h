#pragma once
// Every status a run took, in order (schema v6): a chained table (hash_chain.h) written in the
// same transaction as the status change, so a run's status — which the chain of `runs` leaves
// out, as it changes while the run goes on — can be checked against its sealed history. A
// status flipped outside dpmix (failed → done, done → cancelled to hide a result) no longer
// matches the run's last transition.
#include "engine/project/sqlite_db.h"

#include <string>
#include <vector>

namespace dpmix::project {

/// Appends and seals one transition of `runId` (caller holds a transaction). Nothing in a file
/// older than schema 6 (read without migrating it: no table to write to).
void recordTransition(Database& db, long long runId, const std::string& status, const std::string& at,
                      const std::string& message);

struct TransitionCheck {
    bool present = false;               // the table exists (schema 6 or later)
    std::vector<std::string> problems;  // runs whose status is not their last transition's, in words
};

/// Compares every run's status with its last recorded transition.
TransitionCheck checkRunTransitions(Database& db);

}  // namespace dpmix::project
