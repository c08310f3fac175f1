#include "app/workbench/runs/job_runner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPointer>
#include <QThread>

#include <exception>

namespace dpmix::workbench {

JobRunner::JobRunner(int progressIntervalMs, QObject* parent)
    : QObject(parent), progressIntervalMs_(progressIntervalMs) {}

JobRunner::~JobRunner() {
    cancelAll();
    for (Job& job : jobs_) {
        job.thread->wait();
        delete job.thread;
    }
}

int JobRunner::start(const QString& stage, JobWork work) {
    const int id = nextId_++;
    Job job;
    const CancellationToken token = job.token;
    QPointer<JobRunner> self(this);
    const int interval = progressIntervalMs_;

    job.thread = QThread::create([self, id, token, interval, work = std::move(work)] {
        // Runs on the worker thread. Everything it tells the GUI goes through queued calls
        // whose context is the application; `self` is only dereferenced on the GUI thread.
        auto post = [self](std::function<void(JobRunner&)> f) {
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [self, f = std::move(f)] {
                    if (self) f(*self);
                },
                Qt::QueuedConnection);
        };
        QElapsedTimer sinceLast;
        sinceLast.start();
        bool first = true;
        const ProgressCallback progress = [&](const ProgressEvent& e) {
            const bool last = e.total > 0 && e.done >= e.total;
            if (!first && !last && sinceLast.elapsed() < interval) return;
            first = false;
            sinceLast.restart();
            const QString message = QString::fromStdString(e.message);
            post([id, e, message](JobRunner& r) {
                if (r.jobs_.contains(id)) Q_EMIT r.progressed(id, e.done, e.total, message, e.jobFraction);
            });
        };
        JobOutcome outcome = JobOutcome::Succeeded;
        QString error;
        try {
            const Status failed = work(token, progress);
            if (token.isCancelled()) {
                outcome = JobOutcome::Cancelled;  // stopped early (its error, if any, is the cancel's)
            } else if (failed) {
                outcome = JobOutcome::Failed;
                error = QString::fromStdString(failed->message);
            }
        } catch (const Cancelled&) {
            outcome = JobOutcome::Cancelled;
        } catch (const std::exception& e) {
            outcome = JobOutcome::Failed;
            error = QString::fromUtf8(e.what());
        } catch (...) {
            outcome = JobOutcome::Failed;
            error = QStringLiteral("unknown error");
        }
        post([id, outcome, error](JobRunner& r) { r.onJobEnded(id, outcome, error); });
    });
    job.thread->setObjectName(QStringLiteral("job-%1").arg(id));
    jobs_.insert(id, job);
    Q_EMIT started(id, stage);
    job.thread->start();
    return id;
}

void JobRunner::cancel(int jobId) {
    auto it = jobs_.find(jobId);
    if (it != jobs_.end()) it->token.cancel();
}

void JobRunner::cancelAll() {
    for (Job& job : jobs_) job.token.cancel();
}

void JobRunner::waitForAll() {
    while (!jobs_.isEmpty()) {
        // Deliver the queued completion calls that shrink jobs_.
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(1);
    }
}

bool JobRunner::isRunning(int jobId) const { return jobs_.contains(jobId); }

int JobRunner::runningCount() const { return static_cast<int>(jobs_.size()); }

void JobRunner::onJobEnded(int jobId, JobOutcome outcome, const QString& message) {
    auto it = jobs_.find(jobId);
    if (it == jobs_.end()) return;
    QThread* thread = it->thread;
    jobs_.erase(it);
    thread->wait();  // the body has returned; this only joins the thread
    delete thread;
    Q_EMIT finished(jobId, outcome, message);
}

}  // namespace dpmix::workbench
