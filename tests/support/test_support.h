#pragma once
// Helpers every test folder shares (header-only, Qt Test): a near-equality check that prints
// both values, a CSV reader for the files the program exports, the head of a file.
#include <QFile>
#include <QString>
#include <QStringList>
#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

/// Verifies |actual − expected| < tolerance; on failure prints actual, expected, their difference
/// and the tolerance (QVERIFY(std::abs(a - b) < t) says only "false").
#define DPMIX_COMPARE_NEAR(actual, expected, tolerance)                                      \
    do {                                                                                     \
        const double dpmixActual_ = static_cast<double>(actual);                             \
        const double dpmixExpected_ = static_cast<double>(expected);                         \
        const double dpmixTolerance_ = static_cast<double>(tolerance);                       \
        const double dpmixDiff_ = std::abs(dpmixActual_ - dpmixExpected_);                   \
        QVERIFY2(dpmixDiff_ < dpmixTolerance_,                                               \
                 qPrintable(QStringLiteral("%1 = %2, %3 = %4: difference %5, expected < %6") \
                                .arg(QStringLiteral(#actual))                                \
                                .arg(dpmixActual_, 0, 'g', 17)                               \
                                .arg(QStringLiteral(#expected))                              \
                                .arg(dpmixExpected_, 0, 'g', 17)                             \
                                .arg(dpmixDiff_, 0, 'g', 6)                                  \
                                .arg(dpmixTolerance_, 0, 'g', 6)));                          \
    } while (false)

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

/// An executable with deterministic tests and Monte-Carlo ones is registered twice
/// (dpmix_add_qtest(... STATISTICAL_PARTS)): as NAME under its labels, and as NAME_statistical
/// under the label `statistical`, with DPMIX_TEST_PART=statistical. Its init() slot calls this
/// with the names of its Monte-Carlo functions: true when the current function belongs to the
/// part being run (QSKIP it otherwise), so each function runs in exactly one of the two.
inline bool inThisTestPart(std::initializer_list<const char*> statisticalFunctions) {
    const char* part = std::getenv("DPMIX_TEST_PART");
    const bool statisticalRun = part && std::strcmp(part, "statistical") == 0;
    bool statistical = false;
    for (const char* f : statisticalFunctions)
        if (std::strcmp(f, QTest::currentTestFunction()) == 0) statistical = true;
    return statistical == statisticalRun || !part;  // run by hand (no part): everything runs
}

/// The first `n` bytes of a file (a format's magic: "%PDF-", "<svg"); empty when unreadable.
inline QByteArray fileHead(const QString& path, int n) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
}

}  // namespace dpmix::test_support
