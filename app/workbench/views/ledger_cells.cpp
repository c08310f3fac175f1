#include "app/workbench/views/ledger_cells.h"

#include <QObject>

#include <cmath>

namespace dpmix::workbench {

QString ledgerNumber(double value) { return std::isinf(value) ? QStringLiteral("∞") : QString::number(value, 'g', 6); }

LedgerEntryCells ledgerEntryCells(const privacy::LedgerEntry& e) {
    const QString none = QStringLiteral("—");
    const bool nonPrivate = e.mechanism == privacy::MechanismKind::NonPrivate;
    LedgerEntryCells c;
    c.stage = QString::fromStdString(e.stage);
    c.mechanism = QString::fromStdString(privacy::toString(e.mechanism));
    c.unit = QString::fromStdString(privacy::toString(e.unit));
    c.split = QString::fromStdString(e.split);
    c.q = nonPrivate ? none : ledgerNumber(e.q);
    c.noise = e.mechanism == privacy::MechanismKind::SubsampledDirichlet
                  ? QStringLiteral("(%1, %2)").arg(ledgerNumber(e.dirichletAlpha), ledgerNumber(e.dirichletR))
              : nonPrivate ? none
                           : ledgerNumber(e.sigma);
    c.steps = QString::number(e.steps);
    c.delta = nonPrivate ? none : ledgerNumber(e.delta);
    c.epsilon = nonPrivate ? QObject::tr("∞ (not private)") : ledgerNumber(e.epsilon);
    c.established = (e.established ? QObject::tr("yes") : QObject::tr("no (claimed)")) +
                    (privacy::isSeededRelease(e) ? QObject::tr("; seeded: not a release") : QString()) +
                    (e.spentInRun > 0 ? QObject::tr("; run %1's release, reused here (counted there)").arg(e.spentInRun)
                                      : QString());
    c.accountant = QString::fromStdString(e.accountant);
    c.assumptions = QString::fromStdString(e.assumptions);
    return c;
}

}  // namespace dpmix::workbench
