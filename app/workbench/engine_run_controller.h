#pragma once
// RunController backed by the engine's study runner: "Run DP-MixMin" becomes one job that
// opens the project on the JobRunner's worker thread (ProjectFile is one-per-thread) and runs
// the stages proxies → mixture with the panel's ε, ρ and seeds overriding the spec. The study
// function is injected (main.cpp passes engine/pipeline's runStudy), so the window and its
// tests do not link LibTorch.
#include "app/workbench/run_controller.h"
#include "engine/project/project_file.h"

#include <QObject>

#include <functional>
#include <string>
#include <vector>

namespace dpmix::workbench {

/// What the panel asks the study runner for.
struct StudyRequest {
    std::vector<std::string> stages = {"proxies", "mixture"};
    std::vector<double> epsilons;
    double rho = 0.0;
    std::vector<long long> seeds;
};

using StudyLog = std::function<void(const std::string&)>;
/// Runs the study on an open project; returns an error message, or nothing on success.
using StudyFunction = std::function<std::optional<Error>(project::ProjectFile&, const StudyRequest&,
                                                         const ProgressCallback&, const CancellationToken&,
                                                         const StudyLog&)>;

/// The request for the panel's values; an Error names the field (seeds) when they do not parse.
Result<StudyRequest> studyRequestFor(const widgets::RunParameters& parameters);

class EngineRunController : public QObject, public RunController {
    Q_OBJECT

public:
    explicit EngineRunController(StudyFunction study, QObject* parent = nullptr);

    Result<QList<StageJob>> planRun(const widgets::RunParameters& parameters) override;
    void setProject(const QString& path, bool readOnly) override;

Q_SIGNALS:
    /// One line of the study's log; emitted from the worker thread (connect queued/auto).
    void logged(const QString& line);

private:
    StudyFunction study_;
    QString project_;
    bool readOnly_ = false;
};

}  // namespace dpmix::workbench
