#pragma once
// Helpers of the Qt tests (widgets, workbench, CLI), header-only: the Qt-free vocabulary of
// unit_test.h plus a CSV reader and a file's head in Qt's types.
#include "tests/support/unit_test.h"

#include <QFile>
#include <QString>
#include <QStringList>
#include <QtTest>


namespace dpmix::test_support {

/// The rows of a CSV file as the program writes it (RFC 4180: quoted cells, doubled quotes,
/// commas and newlines inside quotes); empty when the file cannot be read.
inline QList<QStringList> readCsvFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QString text = QString::fromUtf8(f.readAll());
    QList<QStringList> rows;
    QStringList row;
    QString cell;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row << cell;
            cell.clear();
        } else if (c == '\n') {
            row << cell;
            cell.clear();
            rows << row;
            row.clear();
        } else if (c != '\r') {
            cell += c;
        }
    }
    if (!cell.isEmpty() || !row.isEmpty()) rows << (row << cell);
    return rows;
}

/// The first `n` bytes of a file (a format's magic: "%PDF-", "<svg"); empty when unreadable.
inline QByteArray fileHead(const QString& path, int n) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
}

}  // namespace dpmix::test_support
