#pragma once
// Writes small uncompressed IDX files (the MNIST format) for the CLI tests' generated studies.
#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>
#include <QtTest>

namespace dpmix::test_support {

inline QByteArray bigEndian(quint32 v) {
    QByteArray b(4, '\0');
    for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
    return b;
}

/// Magic 0x0000 08 <dims>, then big-endian sizes, then the unsigned bytes.
inline void writeIdx(const QString& path, const QList<quint32>& dims, const QByteArray& data) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QByteArray bytes;
    bytes.append('\0').append('\0').append(char(0x08)).append(char(dims.size()));
    for (auto d : dims) bytes.append(bigEndian(d));
    bytes.append(data);
    f.write(bytes);
}

}  // namespace dpmix::test_support
