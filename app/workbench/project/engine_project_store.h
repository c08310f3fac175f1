#pragma once
// ProjectStore backed by engine/project: opens .dpmix files (or a spec, whose project is made
// next to it), fills the parameter panel from the stored spec and reads every run's results.
#include "app/workbench/project/project_store.h"
#include "engine/project/project_opener.h"

namespace dpmix::workbench {

/// The panel's values for a project: the spec's first ε, δ, ρ, seeds, composition and mixture
/// stage; n is the sensitive training set: 80% of the sensitive examples (or users), as the
/// study runner splits them.
widgets::RunParameters parametersFromProject(const ProjectSnapshot& project);

class EngineProjectStore : public ProjectStore {
public:
    /// `summarize` loads a source's facts (main.cpp passes the data layer's summariser); it is
    /// only needed to create a project from a spec.
    explicit EngineProjectStore(project::SourceSummarizer summarize) : summarize_(std::move(summarize)) {}
    QString schemaVersion() const override;
    Result<widgets::RunParameters> open(const QString& path) override;
    /// The project file stores parameters with each run (in the run's configuration), not as
    /// editable settings: refuses with that explanation and writes nothing.
    Status save(const QString& path, const widgets::RunParameters& parameters) override;
    Result<ProjectSnapshot> load(const QString& path) override;
    Result<QString> createFromSpec(const QString& specPath) override;
    Result<QString> exportRelease(const QString& projectPath, const QString& target,
                                  const project::ReleaseOptions& options) override;

private:
    project::SourceSummarizer summarize_;
};

}  // namespace dpmix::workbench
