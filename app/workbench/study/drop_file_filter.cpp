#include "app/workbench/study/drop_file_filter.h"

#include <QDragEnterEvent>
#include <QDragMoveEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QUrl>
#include <QWidget>

namespace dpmix::workbench {

DropFileFilter::DropFileFilter(QWidget* target) : QObject(target) {
    target->setAcceptDrops(true);
    target->installEventFilter(this);
}

QStringList DropFileFilter::localPaths(const QMimeData* mime) {
    QStringList paths;
    if (!mime || !mime->hasUrls()) return paths;
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    return paths;
}

bool DropFileFilter::eventFilter(QObject* watched, QEvent* event) {
    switch (event->type()) {
        case QEvent::DragEnter:
        case QEvent::DragMove: {
            auto* drag = static_cast<QDragMoveEvent*>(event);  // QDragEnterEvent derives from it
            if (localPaths(drag->mimeData()).isEmpty()) return false;
            drag->setDropAction(Qt::CopyAction);
            drag->accept();
            return true;
        }
        case QEvent::Drop: {
            auto* drop = static_cast<QDropEvent*>(event);
            const QStringList paths = localPaths(drop->mimeData());
            if (paths.isEmpty()) return false;
            drop->setDropAction(Qt::CopyAction);
            drop->accept();
            Q_EMIT pathsDropped(paths, drop->position().toPoint());
            return true;
        }
        default: return QObject::eventFilter(watched, event);
    }
}

}  // namespace dpmix::workbench
