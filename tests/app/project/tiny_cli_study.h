#pragma once
// The tiny study the CLI project tests write themselves (no real data): IDX files of 4×4
// images over four classes, its spec, and raw SQLite access for tampering with a project.
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QtTest>

#include <sqlite3.h>

namespace dpmix::testing {

inline QByteArray bigEndian(quint32 v) {
    QByteArray b(4, 0);
    for (int i = 0; i < 4; ++i) b[i] = char((v >> (24 - 8 * i)) & 0xFF);
    return b;
}

inline void writeIdxImages(const QString& path, int n, int seed) {
    QByteArray data = bigEndian(0x803) + bigEndian(n) + bigEndian(4) + bigEndian(4);
    for (int i = 0; i < n * 16; ++i) data.append(char((i * 37 + seed * 11) % 256));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(data);
}

inline void writeIdxLabels(const QString& path, int n) {
    QByteArray data = bigEndian(0x801) + bigEndian(n);
    for (int i = 0; i < n; ++i) data.append(char(i % 4));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(data);
}

inline const char* kSpec = R"({
  "name": "tiny",
  "description": "tiny fixture study",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "tiny/pub-images.idx",
                      "options": {"labels": "pub-labels.idx", "classes": "a,b,c,d"}}],
  "sensitive": {"name": "priv", "loader": "idx", "path": "tiny/priv-images.idx",
                "options": {"labels": "priv-labels.idx", "classes": "a,b,c,d"}},
  "tasks": {"public": [{"name": "ab", "classes": ["a", "b"]}, {"name": "cd", "classes": ["c", "d"]}],
            "sensitive": [{"name": "ac", "classes": ["a", "c"]}]},
  "privacy": {"epsilon": [1, 2], "delta": 1e-6, "rho": 0.1, "composition": "parallel"},
  "stages": {"mixture": {"clip": 13, "batch": 4, "lr": 1.0, "steps": 10}},
  "seeds": [0, 1]
})";

inline void rawExec(const QString& file, const QString& sql) {
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(file.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, sql.toUtf8().constData(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
}

inline QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Writes the study's four IDX files under <folder>/tiny/ and its spec as <folder>/tiny.json;
/// returns the spec's path.
inline QString writeTinyStudy(const QString& folder) {
    const QString tiny = folder + "/tiny";
    if (!QDir().mkpath(tiny)) return {};
    writeIdxImages(tiny + "/pub-images.idx", 60, 1);
    writeIdxLabels(tiny + "/pub-labels.idx", 60);
    writeIdxImages(tiny + "/priv-images.idx", 40, 2);
    writeIdxLabels(tiny + "/priv-labels.idx", 40);
    QFile spec(folder + "/tiny.json");
    if (!spec.open(QIODevice::WriteOnly)) return {};
    spec.write(kSpec);
    return spec.fileName();
}

}  // namespace dpmix::testing
