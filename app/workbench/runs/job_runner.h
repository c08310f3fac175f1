#pragma once
// Runs long stages off the GUI thread: each job is a std::function executed on its own
// QThread with a dpmix::CancellationToken and a ProgressCallback. Progress and completion
// reach the GUI thread as queued signals; cancel() sets the token, and the stage stops at its
// next poll (stages poll at least once a second, DEVELOPING.md).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>

class QThread;

namespace dpmix::workbench {

/// A job's work: returns its error, or nothing when it finished. A stage that throws (LibTorch
/// does) fails with the exception's message; one that returns after a cancel is cancelled.
using JobWork = std::function<Status(const CancellationToken&, const ProgressCallback&)>;

enum class JobOutcome { Succeeded, Failed, Cancelled };

class JobRunner : public QObject {
    Q_OBJECT

public:
    /// Progress reports closer together than this are coalesced (the last one wins), so a
    /// stage reporting every step cannot flood the GUI's event queue.
    explicit JobRunner(int progressIntervalMs = 50, QObject* parent = nullptr);
    /// Cancels every running job and waits for its thread.
    ~JobRunner() override;

    /// Starts `work` on a new thread; returns the job id (> 0).
    int start(const QString& stage, JobWork work);
    /// Asks a job to stop; no effect on unknown or finished jobs.
    void cancel(int jobId);
    void cancelAll();
    /// Blocks until every job has ended (GUI thread only; pending signals are still delivered).
    void waitForAll();

    bool isRunning(int jobId) const;
    int runningCount() const;

Q_SIGNALS:
    void started(int jobId, const QString& stage);
    /// The stage's done/total and message, and the whole job's share (-1: unknown; ProgressEvent).
    void progressed(int jobId, long long done, long long total, const QString& message, double jobFraction);
    /// `message`: the error for Failed, empty otherwise.
    void finished(int jobId, dpmix::workbench::JobOutcome outcome, const QString& message);

private:
    struct Job {
        QThread* thread = nullptr;
        CancellationToken token;
    };
    void onJobEnded(int jobId, JobOutcome outcome, const QString& message);

    int progressIntervalMs_;
    int nextId_ = 1;
    QHash<int, Job> jobs_;
};

}  // namespace dpmix::workbench
