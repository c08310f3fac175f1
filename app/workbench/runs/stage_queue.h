#pragma once
// The queue of the workbench's jobs. Each request (one Run, one ε sweep, one audit) is a list of
// dependent stages: they run one after another, each only when the previous one succeeded, so a
// failed or cancelled stage ends its own request — and nothing else. Requests run in the order
// they were made, one stage at a time. Every queued stage is a row of the Jobs dock with status
// "Queued" and its own Cancel; every change of state is a line of the log.
#include "app/workbench/runs/job_runner.h"
#include "app/workbench/runs/run_controller.h"

#include <QList>
#include <QObject>
#include <QString>

namespace dpmix::widgets {
class JobListWidget;
}

namespace dpmix::workbench {

class StageQueue : public QObject {
    Q_OBJECT

public:
    /// Feeds `runner`'s jobs to `list` (neither owned; both must outlive the queue).
    StageQueue(JobRunner* runner, widgets::JobListWidget* list, QObject* parent = nullptr);

    /// Queues one request; starts it at once when nothing runs. Returns the request's id (> 0).
    int enqueue(const QList<StageJob>& stages);
    /// Cancels the running stage and every queued one.
    void cancelAll();

    int queuedCount() const { return static_cast<int>(queue_.size()); }
    /// The runner's id of the stage running now (0: none).
    int runningJob() const { return current_; }

Q_SIGNALS:
    void logged(const QString& line);
    /// A stage of a request ended (after the queue moved on): the window rereads the project.
    void stageEnded(int jobId, dpmix::workbench::JobOutcome outcome);

private:
    struct Queued {
        StageJob job;
        int ticket = 0;  // the dock row's id while queued (negative: runner ids are positive)
        int request = 0;
    };
    void startNext();
    void onFinished(int jobId, JobOutcome outcome, const QString& message);
    void onCancelRequested(int rowId);
    /// Drops the queued stages of `request` (all requests when 0), marking their rows.
    void dropQueued(int request, const QString& why);

    JobRunner* runner_;
    widgets::JobListWidget* list_;
    QList<Queued> queue_;
    int current_ = 0;  // runner job id of the running stage
    int currentRequest_ = 0;
    QString currentStage_;
    int nextTicket_ = -1;
    int nextRequest_ = 1;
};

}  // namespace dpmix::workbench
