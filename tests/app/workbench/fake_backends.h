#pragma once
// Test doubles for the workbench's two engine seams.
#include "app/workbench/project/project_store.h"
#include "app/workbench/runs/run_controller.h"

#include <QMap>
#include <QThread>

namespace dpmix::workbench::testing {

/// Keeps "files" in memory; a path containing "readonly" fails to save.
class MemoryProjectStore : public ProjectStore {
public:
    QString schemaVersion() const override { return QStringLiteral("test-schema-7"); }
    Result<widgets::RunParameters> open(const QString& path) override {
        if (!files.contains(path)) return Error{("cannot open " + path + ": no such project").toStdString()};
        return files.value(path);
    }
    std::optional<Error> save(const QString& path, const widgets::RunParameters& p) override {
        if (path.contains("readonly")) return Error{("cannot save " + path + ": read-only").toStdString()};
        files.insert(path, p);
        return std::nullopt;
    }
    QMap<QString, widgets::RunParameters> files;
};

/// One stage that runs until cancelled (polling every 5 ms), reporting progress.
class EndlessStageController : public RunController {
public:
    Result<QList<StageJob>> planRun(const widgets::RunParameters& p) override {
        ++runs;
        lastParameters = p;
        StageJob job{QStringLiteral("Mixture learning (fake)"),
                     [](const CancellationToken& token, const ProgressCallback& progress) -> Status {
                         for (long long i = 0;; ++i) {
                             throwIfCancelled(token);
                             report(progress, {"mixture", i % 100, 100, "fake step"});
                             QThread::msleep(5);
                         }
                     }};
        return QList<StageJob>{job};
    }
    int runs = 0;
    widgets::RunParameters lastParameters;
};

}  // namespace dpmix::workbench::testing
