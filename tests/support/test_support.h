#pragma once
// Helpers of the Qt tests (widgets, workbench, CLI), header-only: the Qt-free vocabulary of
// unit_test.h plus a CSV reader and a file's head in Qt's types.
#include "tests/support/unit_test.h"

#include <QFile>
#include <QString>
#include <QStringList>
#include <QtTest>

namespace dpmix::test_support {

/// readCsvRows (unit_test.h) in Qt's types: the cells decoded as UTF-8.
inline QList<QStringList> readCsvFile(const QString& path) {
    QList<QStringList> rows;
    for (const auto& row : readCsvRows(path.toStdString())) {
        QStringList cells;
        for (const auto& cell : row) cells << QString::fromStdString(cell);
        rows << cells;
    }
    return rows;
}

/// sourceDir() / binaryDir() (unit_test.h) as QStrings, with `relative` appended ("/bin/dpmix").
inline QString sourcePath(const QString& relative = {}) { return QString::fromStdString(sourceDir()) + relative; }
inline QString binaryPath(const QString& relative = {}) { return QString::fromStdString(binaryDir()) + relative; }

/// The first `n` bytes of a file (a format's magic: "%PDF-", "<svg"); empty when unreadable.
inline QByteArray fileHead(const QString& path, int n) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
}

}  // namespace dpmix::test_support
