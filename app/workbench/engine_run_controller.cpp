#include "app/workbench/engine_run_controller.h"

#include "app/workbench/privacy_plan.h"

#include <stdexcept>

namespace dpmix::workbench {

Result<StudyRequest> studyRequestFor(const widgets::RunParameters& parameters) {
    auto seeds = parseSeeds(parameters.seeds);
    if (!seeds) return seeds.error();
    StudyRequest request;
    request.epsilons = {parameters.epsilon};
    request.rho = parameters.rho;
    request.seeds = *seeds;
    return request;
}

EngineRunController::EngineRunController(StudyFunction study, QObject* parent)
    : QObject(parent), study_(std::move(study)) {}

void EngineRunController::setProject(const QString& path, bool readOnly) {
    project_ = path;
    readOnly_ = readOnly;
}

Result<QList<StageJob>> EngineRunController::planRun(const widgets::RunParameters& parameters) {
    if (project_.isEmpty())
        return Error{"No project is open: open a .dpmix project (or create one from a spec) before running."};
    if (readOnly_) return Error{("The project " + project_ + " is open read-only: runs are disabled.").toStdString()};
    auto request = studyRequestFor(parameters);
    if (!request) return request.error();

    StageJob job;
    job.stage = tr("DP-MixMin: proxies → mixture (ε = %1, ρ = %2, seeds %3)")
                    .arg(parameters.epsilon)
                    .arg(parameters.rho)
                    .arg(parameters.seeds);
    job.work = [this, path = project_.toStdString(), study = study_, request = *request](
                   const CancellationToken& token, const ProgressCallback& progress) {
        const StudyLog log = [this](const std::string& line) { Q_EMIT logged(QString::fromStdString(line)); };
        log("Opening " + path);
        log("The mixture stage's clip, batch, η and steps come from the project's spec.");
        auto file = project::ProjectFile::open(path);
        if (!file) throw std::runtime_error(file.error().message);
        project::ProjectFile project = std::move(file).value();
        if (auto error = study(project, request, progress, token, log)) {
            log("Stopped: " + error->message);
            if (token.isCancelled()) return;  // the runner marked the run cancelled
            throw std::runtime_error(error->message);
        }
        log("Study finished.");
    };
    return QList<StageJob>{job};
}

}  // namespace dpmix::workbench
