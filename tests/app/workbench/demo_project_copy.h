#pragma once
// The data tests that drive the real engine start from a copy of the Fashion-MNIST demo project
// (projects/fashion-mnist.dpmix and its stored models), so they never write the demo itself.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>

namespace dpmix::workbench::testing {

/// The demo project next to DPMIX_DATA_DIR, or an empty string when there is none (skip).
inline QString demoProject() {
    const QString data = qEnvironmentVariable("DPMIX_DATA_DIR");
    const QString demo = QDir(data).absoluteFilePath("../projects/fashion-mnist.dpmix");
    return data.isEmpty() || !QFile::exists(demo) ? QString() : demo;
}

/// Copies the demo project (and its models folder, when there is one) into `dir`; returns the
/// copy's path, or an empty string when a copy fails.
inline QString copyDemoProject(const QString& dir) {
    const QString data = qEnvironmentVariable("DPMIX_DATA_DIR");
    const QString demo = demoProject();
    const QString project = dir + "/fashion-mnist.dpmix";
    if (!QFile::copy(demo, project)) return {};
    const QString models = QDir(data).absoluteFilePath("../projects/fashion-mnist.models");
    if (QDir(models).exists()) {
        const QString to = dir + "/fashion-mnist.models";
        QDir().mkpath(to);
        for (const QFileInfo& f : QDir(models).entryInfoList(QDir::Files))
            if (!QFile::copy(f.absoluteFilePath(), to + "/" + f.fileName())) return {};
    }
    return project;
}

}  // namespace dpmix::workbench::testing
