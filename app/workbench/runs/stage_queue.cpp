#include "app/workbench/runs/stage_queue.h"

#include "widgets/job_list_widget.h"

namespace dpmix::workbench {

StageQueue::StageQueue(JobRunner* runner, widgets::JobListWidget* list, QObject* parent)
    : QObject(parent), runner_(runner), list_(list) {
    connect(runner_, &JobRunner::finished, this, &StageQueue::onFinished);
    connect(list_, &widgets::JobListWidget::cancelRequested, this, &StageQueue::onCancelRequested);
}

int StageQueue::enqueue(const QList<StageJob>& stages) {
    const int request = nextRequest_++;
    for (const StageJob& stage : stages) {
        Queued q{stage, nextTicket_--, request};
        list_->addQueuedJob(q.ticket, stage.stage);
        Q_EMIT logged(tr("queued: %1").arg(stage.stage));
        queue_.append(std::move(q));
    }
    if (current_ == 0) startNext();
    return request;
}

void StageQueue::startNext() {
    if (queue_.isEmpty()) {
        current_ = 0;
        currentRequest_ = 0;
        return;
    }
    Queued next = queue_.takeFirst();
    list_->removeJob(next.ticket);  // the runner's own row replaces it
    currentRequest_ = next.request;
    currentStage_ = next.job.stage;
    Q_EMIT logged(tr("started: %1").arg(next.job.stage));
    current_ = runner_->start(next.job.stage, std::move(next.job.work));
}

void StageQueue::onFinished(int jobId, JobOutcome outcome, const QString& message) {
    if (jobId != current_) return;
    const int request = currentRequest_;
    switch (outcome) {
        case JobOutcome::Succeeded: Q_EMIT logged(tr("done: %1").arg(currentStage_)); break;
        case JobOutcome::Failed: Q_EMIT logged(tr("failed: %1: %2").arg(currentStage_, message)); break;
        case JobOutcome::Cancelled: Q_EMIT logged(tr("cancelled: %1").arg(currentStage_)); break;
    }
    // Later stages of the same request depend on this one's output; other requests do not.
    if (outcome != JobOutcome::Succeeded)
        dropQueued(request, tr("not started: an earlier stage of the same run did not finish"));
    current_ = 0;
    Q_EMIT stageEnded(jobId, outcome);  // the window rereads the project before the next stage writes
    startNext();
}

void StageQueue::onCancelRequested(int rowId) {
    if (rowId > 0) {
        runner_->cancel(rowId);  // the running stage: it stops at its next poll
        return;
    }
    for (qsizetype i = 0; i < queue_.size(); ++i)
        if (queue_[i].ticket == rowId) {
            // A queued stage: it and the later stages of its request never start.
            const int request = queue_[i].request;
            list_->setFinished(rowId, widgets::JobState::Cancelled, tr("before it started"));
            Q_EMIT logged(tr("cancelled before it started: %1").arg(queue_[i].job.stage));
            queue_.removeAt(i);
            dropQueued(request, tr("not started: an earlier stage of the same run was cancelled"));
            return;
        }
}

void StageQueue::dropQueued(int request, const QString& why) {
    QList<Queued> kept;
    for (Queued& q : queue_) {
        if (request != 0 && q.request != request) {
            kept.append(std::move(q));
            continue;
        }
        list_->setFinished(q.ticket, widgets::JobState::Cancelled, why);
        Q_EMIT logged(tr("%1: %2").arg(why, q.job.stage));
    }
    queue_ = std::move(kept);
}

void StageQueue::cancelAll() {
    dropQueued(0, tr("cancelled before it started"));
    runner_->cancelAll();
}

}  // namespace dpmix::workbench
