#include "widgets/tidy_table.h"

#include <QSet>
#include <QStringList>

#include <algorithm>

namespace dpmix::widgets {
namespace {

const QStringList kLeading = {"task",      "epsilon",  "method", "run", "seed", "canary", "source",
                              "component", "category", "series", "k",   "step", "x"};
const QStringList kTrailing = {"metric", "value", "std", "error", "lower", "upper", "runs"};

}  // namespace

void setField(TidyFields& row, const QString& column, const QString& cell) {
    for (auto& field : row)
        if (field.first == column) {
            field.second = cell;
            return;
        }
    row.append({column, cell});
}

TidyFields withFields(TidyFields row, const TidyFields& more) {
    for (const auto& [column, cell] : more) setField(row, column, cell);
    return row;
}

PlotTable tidyTable(const QList<TidyFields>& rows) {
    QStringList others;
    QSet<QString> present;
    for (const TidyFields& row : rows)
        for (const auto& field : row) {
            present.insert(field.first);
            if (!kLeading.contains(field.first) && !kTrailing.contains(field.first) && !others.contains(field.first))
                others << field.first;
        }
    PlotTable table;
    for (const QString& c : kLeading)
        if (present.contains(c)) table.columns << c;
    table.columns << others;
    for (const QString& c : kTrailing)
        if (present.contains(c)) table.columns << c;

    QSet<QString> written;  // rows already in the table, joined with a separator no cell holds
    for (const TidyFields& row : rows) {
        QStringList cells;
        for (const QString& column : table.columns) {
            const auto it = std::find_if(row.begin(), row.end(), [&](const auto& f) { return f.first == column; });
            cells << (it == row.end() ? QString() : it->second);
        }
        const QString key = cells.join(QChar(0x1F));
        if (written.contains(key)) continue;
        written.insert(key);
        table.rows << cells;
    }
    return table;
}

}  // namespace dpmix::widgets
