#include "widgets/job_list_widget.h"

#include <QHeaderView>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace dpmix::widgets {
namespace {
enum Column { kStage, kProgress, kElapsed, kEta, kStatus, kCancel, kColumns };
}

QString toDisplayString(JobState state) {
    switch (state) {
        case JobState::Queued: return QObject::tr("Queued");
        case JobState::Running: return QObject::tr("Running");
        case JobState::Succeeded: return QObject::tr("Done");
        case JobState::Failed: return QObject::tr("Failed");
        case JobState::Cancelled: return QObject::tr("Cancelled");
    }
    return {};
}

QString formatDuration(qint64 ms) {
    const qint64 s = std::max<qint64>(0, ms) / 1000;
    const qint64 h = s / 3600, m = (s / 60) % 60, sec = s % 60;
    if (h > 0) return QStringLiteral("%1:%2:%3").arg(h).arg(m, 2, 10, QChar('0')).arg(sec, 2, 10, QChar('0'));
    return QStringLiteral("%1:%2").arg(m).arg(sec, 2, 10, QChar('0'));
}

qint64 estimateRemainingMs(qint64 elapsedMs, long long done, long long total) {
    if (done <= 0 || total <= 0 || done > total) return -1;
    return static_cast<qint64>(static_cast<double>(elapsedMs) * static_cast<double>(total - done) /
                               static_cast<double>(done));
}

JobListWidget::JobListWidget(QWidget* parent)
    : QWidget(parent), table_(new QTableWidget(0, kColumns, this)), ticker_(new QTimer(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(table_);
    table_->setHorizontalHeaderLabels({tr("Stage"), tr("Progress"), tr("Elapsed"), tr("ETA"), tr("Status"), QString()});
    table_->verticalHeader()->setVisible(false);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    auto* header = table_->horizontalHeader();
    header->setSectionResizeMode(kStage, QHeaderView::Interactive);
    header->setSectionResizeMode(kProgress, QHeaderView::Stretch);
    header->setSectionResizeMode(kElapsed, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(kEta, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(kStatus, QHeaderView::Interactive);
    header->setSectionResizeMode(kCancel, QHeaderView::ResizeToContents);
    table_->setColumnWidth(kStage, 180);
    table_->setColumnWidth(kStatus, 220);
    ticker_->setInterval(1000);  // elapsed/ETA tick once a second while anything runs
    connect(ticker_, &QTimer::timeout, this, &JobListWidget::refreshTimes);
}

void JobListWidget::addJob(int jobId, const QString& stage) { insertRow(jobId, stage, JobState::Running); }

void JobListWidget::addQueuedJob(int jobId, const QString& stage) { insertRow(jobId, stage, JobState::Queued); }

void JobListWidget::insertRow(int jobId, const QString& stage, JobState state) {
    if (rows_.contains(jobId)) return;
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* stageItem = new QTableWidgetItem(stage);
    stageItem->setData(Qt::UserRole, jobId);
    table_->setItem(row, kStage, stageItem);
    auto* bar = new QProgressBar(table_);
    if (state == JobState::Running) {
        bar->setRange(0, 0);  // busy until the first progress report says how much there is
    } else {
        bar->setRange(0, 1);
        bar->setValue(0);
        bar->setFormat(tr("waiting"));
    }
    bar->setTextVisible(true);
    table_->setCellWidget(row, kProgress, bar);
    table_->setItem(row, kElapsed,
                    new QTableWidgetItem(state == JobState::Running ? formatDuration(0) : QStringLiteral("–")));
    table_->setItem(row, kEta, new QTableWidgetItem(QStringLiteral("–")));
    table_->setItem(row, kStatus, new QTableWidgetItem(toDisplayString(state)));
    auto* cancel = new QPushButton(tr("Cancel"), table_);
    cancel->setToolTip(state == JobState::Running
                           ? tr("Ask the job to stop at its next safe point (within a second).")
                           : tr("Take the job off the queue (with the later stages of its run)."));
    connect(cancel, &QPushButton::clicked, this, [this, jobId] { Q_EMIT cancelRequested(jobId); });
    table_->setCellWidget(row, kCancel, cancel);
    Row r;
    r.state = state;
    if (state == JobState::Running) r.clock.start();
    rows_.insert(jobId, r);
    table_->scrollToItem(stageItem);  // the dock follows the newest job
    if (state == JobState::Running && !ticker_->isActive()) ticker_->start();
}

void JobListWidget::removeJob(int jobId) {
    const int row = rowOf(jobId);
    if (row >= 0) table_->removeRow(row);
    rows_.remove(jobId);
}

void JobListWidget::setProgress(int jobId, long long done, long long total, const QString& message,
                                double jobFraction) {
    auto it = rows_.find(jobId);
    if (it == rows_.end() || it->state != JobState::Running) return;
    it->done = done;
    it->total = total;
    it->jobFraction = jobFraction;
    const int row = rowOf(jobId);
    if (auto* bar = progressBar(jobId)) {
        if (jobFraction >= 0.0) {
            // One bar for the whole job; the stage's own count beside its share.
            bar->setRange(0, 1000);
            bar->setValue(static_cast<int>(1000.0 * std::min(1.0, jobFraction)));
            const QString share = tr("%1% of the job").arg(static_cast<int>(100.0 * std::min(1.0, jobFraction)));
            bar->setFormat(total > 0 ? QStringLiteral("%1 · %2 / %3").arg(share).arg(done).arg(total) : share);
        } else if (total > 0) {
            // QProgressBar is int-based: scale to per-mille so long counts do not overflow.
            bar->setRange(0, 1000);
            bar->setValue(static_cast<int>(1000.0 * static_cast<double>(done) / static_cast<double>(total)));
            bar->setFormat(QStringLiteral("%1 / %2").arg(done).arg(total));
        } else {
            bar->setRange(0, 0);
        }
    }
    if (!message.isEmpty()) table_->item(row, kStatus)->setText(message);
    refreshRow(jobId);
}

void JobListWidget::setFinished(int jobId, JobState state, const QString& message) {
    auto it = rows_.find(jobId);
    if (it == rows_.end()) return;
    it->state = state;
    it->finishedMs = it->clock.isValid() ? it->clock.elapsed() : -1;
    const int row = rowOf(jobId);
    if (auto* bar = progressBar(jobId)) {
        if (bar->maximum() == 0) bar->setRange(0, 1000);
        if (state == JobState::Succeeded) bar->setValue(bar->maximum());
        // The plan's last part (an evaluation) reports nothing: a finished job is all of it.
        if (state == JobState::Succeeded && it->jobFraction >= 0.0) bar->setFormat(tr("100% of the job"));
    }
    QString text = toDisplayString(state);
    if (!message.isEmpty()) text += QStringLiteral(": ") + message;
    table_->item(row, kStatus)->setText(text);
    table_->item(row, kStatus)->setToolTip(text);
    if (auto* cancel = cancelButton(jobId)) cancel->setEnabled(false);
    refreshRow(jobId);
    bool anyRunning = false;
    for (const Row& r : std::as_const(rows_)) anyRunning |= r.state == JobState::Running;
    if (!anyRunning) ticker_->stop();
}

void JobListWidget::clearFinished() {
    for (int row = table_->rowCount() - 1; row >= 0; --row) {
        const int id = table_->item(row, kStage)->data(Qt::UserRole).toInt();
        const JobState state = rows_.value(id).state;
        if (state != JobState::Running && state != JobState::Queued) {
            table_->removeRow(row);
            rows_.remove(id);
        }
    }
}

int JobListWidget::rowCount() const { return table_->rowCount(); }

int JobListWidget::rowOf(int jobId) const {
    for (int row = 0; row < table_->rowCount(); ++row)
        if (table_->item(row, kStage)->data(Qt::UserRole).toInt() == jobId) return row;
    return -1;
}

JobState JobListWidget::state(int jobId) const { return rows_.value(jobId).state; }

QString JobListWidget::statusText(int jobId) const {
    const int row = rowOf(jobId);
    return row < 0 ? QString() : table_->item(row, kStatus)->text();
}

QProgressBar* JobListWidget::progressBar(int jobId) const {
    const int row = rowOf(jobId);
    return row < 0 ? nullptr : qobject_cast<QProgressBar*>(table_->cellWidget(row, kProgress));
}

QPushButton* JobListWidget::cancelButton(int jobId) const {
    const int row = rowOf(jobId);
    return row < 0 ? nullptr : qobject_cast<QPushButton*>(table_->cellWidget(row, kCancel));
}

QString JobListWidget::elapsedText(int jobId) const {
    const int row = rowOf(jobId);
    return row < 0 ? QString() : table_->item(row, kElapsed)->text();
}

QString JobListWidget::etaText(int jobId) const {
    const int row = rowOf(jobId);
    return row < 0 ? QString() : table_->item(row, kEta)->text();
}

void JobListWidget::refreshTimes() {
    for (auto it = rows_.cbegin(); it != rows_.cend(); ++it)
        if (it->state == JobState::Running) refreshRow(it.key());
}

void JobListWidget::refreshRow(int jobId) {
    const Row& r = rows_[jobId];
    const int row = rowOf(jobId);
    if (row < 0) return;
    if (!r.clock.isValid()) return;  // never started: no time to show
    const qint64 elapsed = r.finishedMs >= 0 ? r.finishedMs : r.clock.elapsed();
    table_->item(row, kElapsed)->setText(formatDuration(elapsed));
    QString eta = QStringLiteral("–");
    if (r.state == JobState::Running) {
        // The whole job's share when known (10,000ths), else the stage's own count.
        const qint64 remaining = r.jobFraction >= 0.0
                                     ? estimateRemainingMs(elapsed, std::llround(10000.0 * r.jobFraction), 10000)
                                     : estimateRemainingMs(elapsed, r.done, r.total);
        if (remaining >= 0) eta = formatDuration(remaining);
    }
    table_->item(row, kEta)->setText(eta);
}

}  // namespace dpmix::widgets
