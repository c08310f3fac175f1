#pragma once
// The small HTML pieces every part of the study report (report_writer.cpp, report_runs.cpp) is
// written with, so a table row or a check mark reads the same in every section.
#include <QString>
#include <QStringList>

#include <string>

namespace dpmix::workbench::report {

inline QString esc(const QString& s) { return s.toHtmlEscaped(); }
inline QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

/// A table row; the first `unbroken` cells are kept on one line (identifiers and numbers that a
/// narrow PDF column would otherwise break mid-word), the others wrap.
inline QString row(const QStringList& cells, const char* tag = "td", int unbroken = 0) {
    QString html = QStringLiteral("<tr>");
    for (int i = 0; i < cells.size(); ++i)
        html += QStringLiteral("<%1%2>%3</%1>")
                    .arg(QLatin1String(tag), i < unbroken ? QStringLiteral(" style='white-space:nowrap'") : QString(),
                         cells[i]);
    return html + QStringLiteral("</tr>\n");
}

/// "✔ text" in green or "✘ text" in red.
inline QString ok(bool good, const QString& text) {
    return good ? QStringLiteral("<span class='ok' style='color:#1a7f37'>✔ %1</span>").arg(esc(text))
                : QStringLiteral("<span class='bad' style='color:#b42318'>✘ %1</span>").arg(esc(text));
}

}  // namespace dpmix::workbench::report
