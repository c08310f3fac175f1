#include "app/workbench/project/ledger_check.h"
#include "app/workbench/project/read_only_files.h"

#include "engine/privacy/ledger_json.h"
#include "engine/project/project_file.h"

namespace dpmix::workbench {

RunLedgerCheck checkRunLedgers(const RunResults& run) {
    RunLedgerCheck check;
    for (const project::LedgerRecord& record : run.ledgers) {
        auto ledger = privacy::ledgerFromJson(record.ledgerJson);
        if (!ledger) {
            check.problems << QStringLiteral("ledger %1 cannot be read: %2")
                                  .arg(record.id)
                                  .arg(QString::fromStdString(ledger.error().message));
            continue;
        }
        const privacy::LedgerVerification v = ledger->verify(record.recordedEpsilon);
        check.entriesChecked += static_cast<long long>(v.entries.size());
        for (const auto& p : v.problems) check.problems << QString::fromStdString(p);
        if (!v.ok && v.problems.empty()) check.problems << QStringLiteral("ledger %1 does not verify").arg(record.id);
    }
    check.ok = check.problems.isEmpty();
    return check;
}

ChainCheck checkProjectChain(const QString& path) {
    ChainCheck check;
    auto file = project::ProjectFile::open(path.toStdString(), openModeFor(path));
    if (!file) {
        check.text = QStringLiteral("cannot reopen the project to check its hash chain: %1")
                         .arg(QString::fromStdString(file.error().message));
        return check;
    }
    auto chain = file->verifyChain();
    if (!chain) {
        check.text = QString::fromStdString(chain.error().message);
        return check;
    }
    check.rowsChecked = chain->rowsChecked;
    check.ok = chain->ok;
    if (chain->ok) {
        check.text = QStringLiteral("hash chain intact (%1 rows)").arg(chain->rowsChecked);
    } else if (chain->firstBreak) {
        const auto& b = *chain->firstBreak;
        check.text = QStringLiteral(
                         "hash chain broken at table %1, row %2 (stored %3…, expected %4…): the file was "
                         "edited after it was written")
                         .arg(QString::fromStdString(b.table))
                         .arg(b.rowId)
                         .arg(QString::fromStdString(b.storedHash.substr(0, 12)),
                              QString::fromStdString(b.expectedHash.substr(0, 12)));
    } else {
        check.text = QStringLiteral("hash chain does not verify");
    }
    return check;
}

}  // namespace dpmix::workbench
