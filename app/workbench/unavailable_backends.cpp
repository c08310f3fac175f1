// The honest placeholders for the two engine seams that are not built yet.
#include "app/workbench/project_store.h"
#include "app/workbench/run_controller.h"

namespace dpmix::workbench {

Result<QList<StageJob>> UnavailableRunController::planRun(const widgets::RunParameters&) {
    return Error{"Runs are not available in this build: the DP-MixMin stages (engine/pipeline) are not part of "
                 "it yet. The parameters and the privacy calculator work; running will come with the pipeline."};
}

QString UnavailableProjectStore::schemaVersion() const {
    return QStringLiteral("none (project files are not part of this build yet)");
}

Result<widgets::RunParameters> UnavailableProjectStore::open(const QString& path) {
    return Error{("Cannot open " + path +
                  ": project files (.dpmix) are not supported by this build yet (engine/project pending).")
                     .toStdString()};
}

std::optional<Error> UnavailableProjectStore::save(const QString& path, const widgets::RunParameters&) {
    return Error{("Cannot save " + path +
                  ": project files (.dpmix) are not supported by this build yet (engine/project pending); "
                  "nothing was written.").toStdString()};
}

}  // namespace dpmix::workbench
