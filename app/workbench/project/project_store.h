#pragma once
// The seam to the .dpmix project file (engine/project, being written separately): open and
// save the run parameters, and the schema version for the About box. The workbench ships
// UnavailableProjectStore until engine/project lands; tests plug in fakes.
#include "app/workbench/project/project_snapshot.h"
#include "engine/core/result.h"
#include "engine/project/release_export.h"
#include "widgets/run_parameters.h"

#include <QString>

#include <optional>

namespace dpmix::workbench {

class ProjectStore {
public:
    virtual ~ProjectStore() = default;
    /// e.g. "3"; shown in the About box.
    virtual QString schemaVersion() const = 0;
    virtual Result<widgets::RunParameters> open(const QString& path) = 0;
    /// Writes atomically: on error the file on disk is unchanged.
    virtual Status save(const QString& path, const widgets::RunParameters& parameters) = 0;
    /// The project's sources, tasks, runs and results (for the tree and the result views).
    virtual Result<ProjectSnapshot> load(const QString& path);
    /// File ▸ New from spec: validates a spec JSON and creates (or reopens) the project next
    /// to it; returns the project's path.
    virtual Result<QString> createFromSpec(const QString& specPath);
    /// File ▸ Export release…: writes a DP release of `projectPath`'s chosen runs at `target`
    /// (engine/project/release_export.h); returns a one-line summary of what it holds.
    virtual Result<QString> exportRelease(const QString& projectPath, const QString& target,
                                          const project::ReleaseOptions& options);
};

class UnavailableProjectStore : public ProjectStore {
public:
    /// `schemaVersion`: the engine's current .dpmix schema (engine/project/schema.h).
    explicit UnavailableProjectStore(QString schemaVersion = {}) : schemaVersion_(std::move(schemaVersion)) {}
    QString schemaVersion() const override;
    Result<widgets::RunParameters> open(const QString& path) override;
    Status save(const QString& path, const widgets::RunParameters& parameters) override;

private:
    QString schemaVersion_;
};

}  // namespace dpmix::workbench
