#pragma once
// Small data files written by the registration tests: IDX images + labels, a JSON-lines corpus,
// and the content hash of an IDX image set computed here, independently of the engine, from
// the encoding documented in engine/data/content_hash.cpp.
#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace dpmix::workbench::testing {

inline QByteArray bigEndian32(std::uint32_t v) {
    QByteArray b;
    for (int shift = 24; shift >= 0; shift -= 8) b.append(static_cast<char>((v >> shift) & 0xff));
    return b;
}

inline bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// IDX image file: magic 0x00000803, dims n, h, w (big-endian), then n·h·w u8 pixels.
inline bool writeIdxImages(const QString& path, int n, int h, int w, const QByteArray& pixels) {
    return writeFile(path, bigEndian32(0x00000803) + bigEndian32(n) + bigEndian32(h) + bigEndian32(w) + pixels);
}

/// IDX label file: magic 0x00000801, dim n, then n u8 labels.
inline bool writeIdxLabels(const QString& path, const std::vector<int>& labels) {
    QByteArray bytes = bigEndian32(0x00000801) + bigEndian32(static_cast<std::uint32_t>(labels.size()));
    for (int l : labels) bytes.append(static_cast<char>(l));
    return writeFile(path, bytes);
}

/// Pixel i of the fixture: a value that differs per example and per position.
inline QByteArray fixturePixels(int n, int h, int w) {
    QByteArray px;
    for (int i = 0; i < n * h * w; ++i) px.append(static_cast<char>((i * 37 + 11) % 256));
    return px;
}

/// SHA-256 of "dpmix-images-v1", u64-LE n, c, h, w, L, each label name (u64-LE length + bytes),
/// the n·c·h·w u8 pixels, the n·L one-hot label bytes, and u64-LE 0 (no users).
inline QString expectedIdxHash(int n, int h, int w, const QByteArray& pixels, const std::vector<int>& labels,
                               const QStringList& classNames) {
    auto u64 = [](std::uint64_t v) {
        QByteArray b;
        for (int i = 0; i < 8; ++i) b.append(static_cast<char>((v >> (8 * i)) & 0xff));
        return b;
    };
    QByteArray m = "dpmix-images-v1";
    for (std::uint64_t v :
         {std::uint64_t(n), std::uint64_t(1), std::uint64_t(h), std::uint64_t(w), std::uint64_t(classNames.size())})
        m += u64(v);
    for (const QString& name : classNames) {
        const QByteArray utf8 = name.toUtf8();
        m += u64(utf8.size()) + utf8;
    }
    m += pixels;
    for (int l : labels)
        for (int c = 0; c < classNames.size(); ++c) m.append(static_cast<char>(l == c ? 1 : 0));
    m += u64(0);
    return QString::fromLatin1(QCryptographicHash::hash(m, QCryptographicHash::Sha256).toHex());
}

/// The standard small fixture: 5 images of 4×3 with labels 2,0,1,2,0 over classes cat,dog,bird.
struct IdxFixture {
    static constexpr int n = 5, h = 4, w = 3;
    std::vector<int> labels{2, 0, 1, 2, 0};
    QStringList classes{"cat", "dog", "bird"};
    QByteArray pixels = fixturePixels(n, h, w);
    QString images, labelFile;

    /// Writes <dir>/<stem>-images-idx3-ubyte and <dir>/<stem>-labels-idx1-ubyte.
    bool write(const QString& dir, const QString& stem = QStringLiteral("pets")) {
        images = dir + "/" + stem + "-images-idx3-ubyte";
        labelFile = dir + "/" + stem + "-labels-idx1-ubyte";
        return writeIdxImages(images, n, h, w, pixels) && writeIdxLabels(labelFile, labels);
    }
    QString hash() const { return expectedIdxHash(n, h, w, pixels, labels, classes); }
};

}  // namespace dpmix::workbench::testing
