#pragma once
// The numbers a chart plots, as a table: what "Export CSV" writes. Charts fill it from the
// very vectors they hand to QCustomPlot, so the CSV is exactly what is on screen.
#include <QList>
#include <QString>
#include <QStringList>

namespace dpmix::widgets {

struct PlotTable {
    QStringList columns;
    QList<QStringList> rows;  // each row has columns.size() cells

    /// RFC 4180 CSV: comma separated, CRLF-free ("\n") lines, cells quoted when they hold
    /// a comma, quote or line break.
    QString toCsv() const;
};

/// A double in its shortest exact (round-trip) decimal form, e.g. 0.1 -> "0.1".
QString formatExact(double value);

}  // namespace dpmix::widgets
