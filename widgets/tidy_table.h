#pragma once
// Tidy ("long") tables for Export CSV: one observation per row, one column per variable, the
// columns named for what they are (task, epsilon, method, component, metric, value, …) rather
// than after legend text. The charts build the rows from the fields each series, category and
// point carries; the views that fill the charts say what those fields are.
#include "widgets/plot_table.h"

#include <QList>
#include <QPair>
#include <QString>

namespace dpmix::widgets {

/// The fields of one observation (or the part of them a series or category knows), as
/// (column, cell) pairs, e.g. {{"method", "dp-mixmin"}, {"epsilon", "1"}}. Column names are
/// ASCII identifiers; cells are plain text.
using TidyFields = QList<QPair<QString, QString>>;

/// Sets `column` to `cell` in `row`, replacing an earlier value of that column.
void setField(TidyFields& row, const QString& column, const QString& cell);

/// `row` with every field of `more` set on it (later fields win).
TidyFields withFields(TidyFields row, const TidyFields& more);

/// The table of these observations. Its columns are every column a row names, in a fixed order:
/// the identifying columns task, epsilon, method, run, seed, canary, source, component,
/// category, series, k, step, x (those present), then any other column in order of first
/// appearance, then metric, value, std, error, lower, upper, runs. A row lacking a column has an empty cell
/// there; a row identical to an earlier one is written once.
PlotTable tidyTable(const QList<TidyFields>& rows);

}  // namespace dpmix::widgets
