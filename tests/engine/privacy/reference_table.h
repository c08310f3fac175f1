#pragma once
// Reads the CSV tables written by reference/rdp_reference.py (an independent Python/SciPy
// implementation, cross-checked with mpmath) into rows of named doubles.
#include <QFile>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

inline QVector<QHash<QString, double>> readReferenceTable(const QString& path) {
    QVector<QHash<QString, double>> rows;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return rows;
    const QStringList header = QString::fromUtf8(f.readLine()).trimmed().split(',');
    while (!f.atEnd()) {
        const QStringList cells = QString::fromUtf8(f.readLine()).trimmed().split(',');
        if (cells.size() != header.size()) continue;
        QHash<QString, double> row;
        for (int i = 0; i < header.size(); ++i) row[header[i]] = cells[i].toDouble();
        rows.push_back(row);
    }
    return rows;
}
