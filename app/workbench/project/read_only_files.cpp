#include "app/workbench/project/read_only_files.h"

#include <QFileInfo>
#include <QMutex>
#include <QMutexLocker>
#include <QSet>

namespace dpmix::workbench {
namespace {

QMutex& guard() {
    static QMutex m;
    return m;
}

QSet<QString>& readOnlyFiles() {
    static QSet<QString> files;
    return files;
}

QString key(const QString& path) { return QFileInfo(path).absoluteFilePath(); }

}  // namespace

void setOpenedReadOnly(const QString& path, bool readOnly) {
    QMutexLocker lock(&guard());
    if (readOnly)
        readOnlyFiles().insert(key(path));
    else
        readOnlyFiles().remove(key(path));
}

project::OpenMode openModeFor(const QString& path) {
    QMutexLocker lock(&guard());
    return readOnlyFiles().contains(key(path)) ? project::OpenMode::ReadOnly : project::OpenMode::Auto;
}

}  // namespace dpmix::workbench
