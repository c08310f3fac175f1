#include "widgets/plot_table.h"

#include <charconv>

namespace dpmix::widgets {
namespace {

QString csvCell(const QString& cell) {
    const bool needsQuotes = cell.contains(',') || cell.contains('"') || cell.contains('\n') || cell.contains('\r');
    if (!needsQuotes) return cell;
    QString escaped = cell;
    escaped.replace("\"", "\"\"");
    return '"' + escaped + '"';
}

QString csvLine(const QStringList& cells) {
    QStringList quoted;
    quoted.reserve(cells.size());
    for (const QString& c : cells) quoted << csvCell(c);
    return quoted.join(',') + '\n';
}

}  // namespace

QString PlotTable::toCsv() const {
    QString out = csvLine(columns);
    for (const QStringList& row : rows) out += csvLine(row);
    return out;
}

QString formatExact(double value) {
    // std::to_chars gives the shortest string that parses back to the same double.
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    if (ec != std::errc()) return QString::number(value, 'g', 17);
    return QString::fromLatin1(buf, static_cast<int>(end - buf));
}

}  // namespace dpmix::widgets
