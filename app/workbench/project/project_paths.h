#pragma once
// Where the project file dialogs start. A clinician registers sources from the patient-data
// folder; Qt's dialogs would then open there for Save and Open as well, inviting a project (and
// its privacy ledger) beside the raw data. Projects are proposed in the folder of the most recent
// project instead (else the documents folder), a new study under its own name, and a name typed
// into a Save that failed is proposed again rather than forgotten.
#include <QString>
#include <QStringList>

namespace dpmix::workbench {

/// The folder project dialogs start in: that of the first existing file of `recentProjects`
/// (most recent first), else the user's documents folder, else the home folder.
QString projectDialogFolder(const QStringList& recentProjects);

/// The path Save proposes for a study not saved before: `lastTyped` when a Save of it failed,
/// else "<study name>.dpmix" (characters a file name cannot hold replaced by '-'; "study" when
/// there is no name) in projectDialogFolder(recentProjects).
QString proposedProjectPath(const QString& lastTyped, const QString& studyName, const QStringList& recentProjects);

}  // namespace dpmix::workbench
