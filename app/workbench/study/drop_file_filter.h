#pragma once
// Accepts drags of local files and folders onto a widget (install it on an item view's
// viewport) and reports the dropped paths with the drop position; other drags are ignored.
#include <QObject>
#include <QPoint>
#include <QStringList>

class QMimeData;

namespace dpmix::workbench {

class DropFileFilter : public QObject {
    Q_OBJECT

public:
    /// Installs itself on `target` and turns on its drops.
    explicit DropFileFilter(QWidget* target);

    /// The local paths in a drag (empty when it holds no local file or folder).
    static QStringList localPaths(const QMimeData* mime);

Q_SIGNALS:
    void pathsDropped(const QStringList& paths, const QPoint& position);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace dpmix::workbench
