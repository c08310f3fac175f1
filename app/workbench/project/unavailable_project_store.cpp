// The honest placeholder for the project store when no project file backend is built in.
#include "app/workbench/project/project_store.h"

namespace dpmix::workbench {

QString UnavailableProjectStore::schemaVersion() const {
    const QString note = QStringLiteral("opening and saving projects is not wired into the workbench yet");
    return schemaVersion_.isEmpty() ? note : QStringLiteral("%1 (%2)").arg(schemaVersion_, note);
}

Result<widgets::RunParameters> UnavailableProjectStore::open(const QString& path) {
    return Error{
        ("Cannot open " + path + ": opening .dpmix projects is not wired into the workbench yet.").toStdString()};
}

Status UnavailableProjectStore::save(const QString& path, const widgets::RunParameters&) {
    return Error{
        ("Cannot save " + path + ": saving .dpmix projects is not wired into the workbench yet; nothing was written.")
            .toStdString()};
}

}  // namespace dpmix::workbench

namespace dpmix::workbench {

Result<ProjectSnapshot> ProjectStore::load(const QString& path) {
    return Error{("Cannot read the results of " + path + ": this build has no project file backend.").toStdString()};
}

Result<QString> ProjectStore::createFromSpec(const QString& specPath) {
    return Error{
        ("Cannot create a project from " + specPath + ": this build has no project file backend.").toStdString()};
}

Result<QString> ProjectStore::exportRelease(const QString& projectPath, const QString&,
                                            const project::ReleaseOptions&) {
    return Error{
        ("Cannot export a release of " + projectPath + ": this build has no project file backend.").toStdString()};
}

}  // namespace dpmix::workbench
