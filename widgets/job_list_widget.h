#pragma once
// The jobs dock's list: one row per job with its stage, a progress bar, elapsed time, ETA,
// status and a Cancel button. It knows nothing about how jobs run; a controller feeds it.
#include <QElapsedTimer>
#include <QHash>
#include <QWidget>

class QTableWidget;
class QProgressBar;
class QPushButton;
class QTimer;

namespace dpmix::widgets {

enum class JobState { Queued, Running, Succeeded, Failed, Cancelled };

QString toDisplayString(JobState state);

/// "0:07", "12:34", "1:02:03".
QString formatDuration(qint64 milliseconds);

/// Remaining time by linear extrapolation of the elapsed time; -1 when unknown
/// (nothing done yet, or total unknown).
qint64 estimateRemainingMs(qint64 elapsedMs, long long done, long long total);

class JobListWidget : public QWidget {
    Q_OBJECT

public:
    explicit JobListWidget(QWidget* parent = nullptr);

    /// A running job's row (the dock scrolls to it).
    void addJob(int jobId, const QString& stage);
    /// A row for a job that waits its turn: status "Queued", its own Cancel, no clock yet.
    void addQueuedJob(int jobId, const QString& stage);
    /// Removes a row (a queued job that has started under another id).
    void removeJob(int jobId);
    /// The current stage's done/total; `jobFraction` in [0, 1] is the whole job's share when the
    /// job knows its plan (-1: it does not) — then the bar and the ETA follow the whole job, and
    /// the stage's own count stays in the bar's text.
    void setProgress(int jobId, long long done, long long total, const QString& message, double jobFraction = -1.0);
    void setFinished(int jobId, JobState state, const QString& message);
    /// Removes finished rows (running and queued jobs stay).
    void clearFinished();

    int rowCount() const;
    int rowOf(int jobId) const;  // -1 if absent
    JobState state(int jobId) const;
    QString statusText(int jobId) const;
    QProgressBar* progressBar(int jobId) const;
    QPushButton* cancelButton(int jobId) const;
    QString elapsedText(int jobId) const;
    QString etaText(int jobId) const;

Q_SIGNALS:
    void cancelRequested(int jobId);

private:
    struct Row {
        JobState state = JobState::Running;
        QElapsedTimer clock;
        qint64 finishedMs = -1;
        long long done = 0;
        long long total = 0;
        double jobFraction = -1.0;
    };
    void refreshTimes();
    void refreshRow(int jobId);
    void insertRow(int jobId, const QString& stage, JobState state);

    QTableWidget* table_;
    QTimer* ticker_;
    QHash<int, Row> rows_;
};

}  // namespace dpmix::widgets
