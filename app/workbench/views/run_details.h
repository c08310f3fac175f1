#pragma once
// What the Run details tab shows of one stored run, as plain text values computed from the
// project snapshot: its identity and timeline, its configuration as key/value rows, its latest
// privacy ledger entry by entry with the composed total, and short listings of its metrics, λ
// records, curves and stored models. Kept free of widgets so the test reads the values directly.
#include "app/workbench/project/project_snapshot.h"

#include <QString>
#include <QStringList>

#include <utility>
#include <vector>

namespace dpmix::workbench {

/// One row of a key/value listing.
using DetailRow = std::pair<QString, QString>;

/// The stored configuration JSON as rows in stored order; nested objects become "outer.inner"
/// keys, arrays stay on one line. A text that is not a JSON object is one row "(unreadable)".
std::vector<DetailRow> configRows(const std::string& configJson);

/// One mechanism of a ledger, as the table shows it.
struct LedgerDetailRow {
    QString stage, split, mechanism, unit, epsilon, delta, parameters, accountant, established;
};

struct LedgerDetails {
    std::vector<LedgerDetailRow> rows;  // the latest stored ledger's entries, in order
    QString total;                      // "Composed (sequential): ε = 1.23, δ = 1e-05 · recorded ε = 1.23"
    QString note;                       // why there are no rows, or that older ledgers exist
};
LedgerDetails ledgerDetails(const RunResults& run);

/// "#12 DP-MixMin · ac · ε = 1 · seed 0".
QString runDetailsTitle(const project::RunRecord& run);
/// Status, created / started / finished (with the duration when both ends are known), build.
QString runTimeline(const project::RunRecord& run);
/// "took 1 h 2 min", "took 3 min 5 s", "took 12 s", or "" when a time cannot be read.
QString runDuration(const std::string& startedAt, const std::string& finishedAt);

/// Metric rows: name (with its class, if any) and value.
std::vector<DetailRow> metricRows(const RunResults& run);

/// The run's λ records as a component × kind table.
struct LambdaTable {
    QStringList kinds;                         // columns: "private", "non-private", ...
    QStringList components;                    // rows, in first-seen order
    std::vector<std::vector<QString>> values;  // [component][kind], "—" where a record lacks it
};
LambdaTable lambdaTable(const RunResults& run);

/// Curve rows: name, "N points, steps a–b, last value v".
std::vector<DetailRow> curveRows(const RunResults& run);

/// Model rows: name, "1.6 MiB · sha256 3f2a…" (names and sizes: the bytes stay on disk).
std::vector<DetailRow> modelRows(const RunResults& run);
/// "512 B", "1.6 KiB", "1.6 MiB", "2.1 GiB".
QString byteSize(long long bytes);

}  // namespace dpmix::workbench
