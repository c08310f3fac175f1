#include "app/workbench/parameters/regime_reference.h"

#include <QFile>

// The resources are compiled into the workbench library; a test that never makes a main window
// registers them here (Q_INIT_RESOURCE must be called outside any namespace; twice is harmless).
static void initRegimeResources() { Q_INIT_RESOURCE(workbench); }

namespace dpmix::workbench {

QString referenceRegimeMapPath() { return QStringLiteral(":/dpmix/regime_map.json"); }

Result<experiments::RegimeMap> readRegimeMapFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{path.toStdString() + ": cannot be read (" + file.errorString().toStdString() + ")"};
    return experiments::regimeMapFromJson(file.readAll().toStdString(), path.toStdString());
}

const Result<experiments::RegimeMap>& referenceRegimeMap() {
    static const Result<experiments::RegimeMap> map = [] {
        initRegimeResources();
        return readRegimeMapFile(referenceRegimeMapPath());
    }();
    return map;
}

}  // namespace dpmix::workbench
