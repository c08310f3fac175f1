#include "app/workbench/runs/latest_result_runner.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

namespace dpmix::workbench {

LatestResultRunner::LatestResultRunner(int debounceMs, QObject* parent)
    : QObject(parent),
      debounce_(new QTimer(this)),
      pool_(new QThreadPool(this)),
      generation_(std::make_shared<std::atomic<quint64>>(0)) {
    pool_->setMaxThreadCount(1);
    debounce_->setSingleShot(true);
    debounce_->setInterval(debounceMs);
    connect(debounce_, &QTimer::timeout, this, &LatestResultRunner::launch);
}

LatestResultRunner::~LatestResultRunner() {
    ++*generation_;        // whatever is queued is stale now
    pool_->waitForDone();  // a computation in progress finishes (tens of ms); its result is dropped
}

void LatestResultRunner::submit(Computation computation) {
    pending_ = std::move(computation);
    ++*generation_;
    debounce_->start();
}

void LatestResultRunner::submitNow(Computation computation) {
    pending_ = std::move(computation);
    ++*generation_;
    debounce_->stop();
    launch();
}

bool LatestResultRunner::isIdle() const { return !debounce_->isActive() && inFlight_ == 0 && !pending_; }

void LatestResultRunner::launch() {
    if (!pending_) return;
    Computation computation = std::move(pending_);
    pending_ = nullptr;
    const quint64 generation = generation_->load();
    ++inFlight_;
    QPointer<LatestResultRunner> self(this);
    pool_->start([self, computation = std::move(computation), generation, latest = generation_] {
        std::function<void()> apply;
        if (latest->load() == generation) apply = computation();  // else superseded: skip the work
        // Back to the GUI thread. The application object is the context (it outlives every
        // runner); `self` is only dereferenced there, where a destroyed runner reads as null.
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, apply = std::move(apply), generation] {
                if (!self) return;
                --self->inFlight_;
                if (generation != self->generation_->load()) return;  // a newer request exists
                if (apply) apply();
                Q_EMIT self->applied();
            },
            Qt::QueuedConnection);
    });
}

}  // namespace dpmix::workbench
