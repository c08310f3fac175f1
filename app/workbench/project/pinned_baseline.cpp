#include "app/workbench/project/pinned_baseline.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QSettings>

namespace dpmix::workbench {

namespace {
// QSettings keys may not contain '/' freely (it nests groups): hash the absolute path.
QString keyFor(const QString& projectPath) {
    const QByteArray path = QFileInfo(projectPath).absoluteFilePath().toUtf8();
    return QStringLiteral("pinnedBaseline/") +
           QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha1).toHex());
}
}  // namespace

std::optional<long long> pinnedBaselineRunId(const QString& projectPath) {
    if (projectPath.isEmpty()) return std::nullopt;
    const QVariant value = QSettings().value(keyFor(projectPath));
    bool ok = false;
    const long long id = value.toLongLong(&ok);
    if (!value.isValid() || !ok || id <= 0) return std::nullopt;
    return id;
}

void setPinnedBaselineRunId(const QString& projectPath, long long runId) {
    QSettings().setValue(keyFor(projectPath), runId);
}

void clearPinnedBaseline(const QString& projectPath) { QSettings().remove(keyFor(projectPath)); }

}  // namespace dpmix::workbench
