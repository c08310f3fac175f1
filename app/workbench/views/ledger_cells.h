#pragma once
// One ledger entry as the text of its cells, the same in the ledger view, the Run details tab and
// the report: the mechanism's numbers, "—" where a non-private entry has none, ε = ∞ spelled
// "∞ (not private)", and whether the guarantee is established.
#include "engine/privacy/ledger.h"

#include <QString>

namespace dpmix::workbench {

/// A ledger number: shortest of 6 significant digits, an infinity as "∞".
QString ledgerNumber(double value);

struct LedgerEntryCells {
    QString stage, mechanism, unit, split;
    QString q;      // "—" for a non-private entry
    QString noise;  // σ, or "(α, r)" for the Dirichlet mechanism; "—" for a non-private entry
    QString steps;
    QString delta;        // "—" for a non-private entry
    QString epsilon;      // "∞ (not private)" for a non-private entry
    QString established;  // "yes" / "no (claimed)", "; seeded: not a release", "; run N's release, reused here"
    QString accountant, assumptions;
};

LedgerEntryCells ledgerEntryCells(const privacy::LedgerEntry& entry);

}  // namespace dpmix::workbench
