#include "app/workbench/project/project_paths.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

namespace dpmix::workbench {

QString projectDialogFolder(const QStringList& recentProjects) {
    for (const QString& file : recentProjects)
        if (const QFileInfo info(file); info.exists()) return info.absolutePath();
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (!documents.isEmpty() && QFileInfo(documents).isDir()) return documents;
    return QDir::homePath();
}

QString proposedProjectPath(const QString& lastTyped, const QString& studyName, const QStringList& recentProjects) {
    if (!lastTyped.isEmpty()) return lastTyped;
    QString name = studyName.trimmed();
    name.replace(QRegularExpression(QStringLiteral(R"([/\\:*?"<>|\x00-\x1f]+)")), QStringLiteral("-"));
    if (name.isEmpty() || name == QStringLiteral(".") || name == QStringLiteral("..")) name = QStringLiteral("study");
    return QDir(projectDialogFolder(recentProjects)).filePath(name + QStringLiteral(".dpmix"));
}

}  // namespace dpmix::workbench
