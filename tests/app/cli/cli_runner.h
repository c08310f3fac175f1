#pragma once
// Runs the built `dpmix` binary and captures what a user would see.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include "tests/support/test_support.h"

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
    QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
};

inline CliResult runDpmix(const QStringList& args, const QString& workDir = {},
                          const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
    p.setProcessEnvironment(env);
    p.start(dpmix::test_support::binaryPath("/bin/dpmix"), args);
    CliResult r;
    if (!p.waitForFinished(120000)) return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}
