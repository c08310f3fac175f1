#include "engine/project/run_transitions.h"

#include "engine/project/hash_chain.h"

#include <map>

namespace dpmix::project {

void recordTransition(Database& db, long long runId, const std::string& status, const std::string& at,
                      const std::string& message) {
    const ChainedTable& table = chainedTable("run_transitions");
    if (chainedTableMissing(db, table)) return;
    Statement s(db.handle(), "INSERT INTO run_transitions(run_id, status, at, message) VALUES(?,?,?,?)");
    s.bind(1, static_cast<std::int64_t>(runId)).bind(2, status).bind(3, at).bind(4, message).run();
    sealRow(db, table, db.lastInsertRowId());
}

TransitionCheck checkRunTransitions(Database& db) {
    TransitionCheck check;
    if (chainedTableMissing(db, chainedTable("run_transitions"))) return check;
    check.present = true;
    std::map<long long, std::string> last;  // run id → status of its last transition
    Statement t(db.handle(), "SELECT run_id, status FROM run_transitions ORDER BY id");
    while (t.step()) last[t.integer(0)] = t.text(1);
    Statement r(db.handle(), "SELECT id, status FROM runs ORDER BY id");
    while (r.step()) {
        const long long id = r.integer(0);
        const std::string status = r.text(1);
        const auto found = last.find(id);
        if (found == last.end())
            check.problems.push_back("run " + std::to_string(id) + " (" + status +
                                     ") has no recorded status transition (added outside dpmix)");
        else if (found->second != status)
            check.problems.push_back("run " + std::to_string(id) + " is '" + status +
                                     "', but its sealed history ends '" + found->second +
                                     "' (its status was changed outside dpmix)");
        if (found != last.end()) last.erase(found);
    }
    for (const auto& [id, status] : last)
        check.problems.push_back("run " + std::to_string(id) + " has a sealed history (last '" + status +
                                 "') but is gone from the file (deleted outside dpmix)");
    return check;
}

}  // namespace dpmix::project
