#pragma once
// The Verify checks as plain results, for the report (LedgerView shows the same checks in
// place): every ε of a run's ledgers recomputed from its recorded parameters
// (privacy::Ledger::verify), and the project's hash chain rechecked (ProjectFile::verifyChain).
#include "app/workbench/project/project_snapshot.h"

#include <QString>
#include <QStringList>

namespace dpmix::workbench {

struct RunLedgerCheck {
    bool ok = true;
    long long entriesChecked = 0;
    QStringList problems;  // plain-language discrepancies
};

/// Checks every stored ledger of `run` (ok with 0 entries when it has none).
RunLedgerCheck checkRunLedgers(const RunResults& run);

struct ChainCheck {
    bool ok = false;
    long long rowsChecked = 0;
    QString text;  // "hash chain intact (N rows)" or where it breaks
};

/// Reopens the project at `path` and rechecks its hash chain.
ChainCheck checkProjectChain(const QString& path);

}  // namespace dpmix::workbench
