#include "app/workbench/runs/cluster_jobs_view.h"

#include "app/workbench/runs/cluster_backend.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace dpmix::workbench {
namespace {

using executor::cluster::JobStatus;
using executor::cluster::UnitStatus;

long long countOf(const JobStatus& job, const char* state) {
    return std::count_if(job.units.begin(), job.units.end(), [&](const UnitStatus& u) { return u.state == state; });
}

// Units whose task may still change state by itself (the poll goes on while there are some).
bool hasLiveUnits(const JobStatus& job) {
    return std::any_of(job.units.begin(), job.units.end(), [](const UnitStatus& u) {
        return u.state == "pending" || u.state == "running" || u.state == "unknown";
    });
}

QString q(const std::string& s) { return QString::fromStdString(s); }

// The job's kind, parsed once from its stored spelling; none: a kind this dpmix does not know.
std::optional<executor::cluster::JobKind> kindOf(const JobStatus& job) {
    const auto kind = executor::cluster::parseJobKind(job.kind);
    return kind ? std::optional(*kind) : std::nullopt;
}

bool storedAsOneRun(const JobStatus& job) {
    const auto kind = kindOf(job);
    return kind && executor::cluster::isStoredAsOneRun(*kind);
}

QString kindLabel(const JobStatus& job) {
    using executor::cluster::JobKind;
    const auto kind = kindOf(job);
    if (!kind) return q(job.kind);
    switch (*kind) {
        case JobKind::Audit: return QObject::tr("mixture audit");
        case JobKind::Run: return QObject::tr("run grid");
        case JobKind::Sweep: return QObject::tr("sweep");
        case JobKind::KScaling: return QObject::tr("k-scaling");
        case JobKind::Adamix: return QObject::tr("AdaMix-R experiment");
    }
    return q(job.kind);
}

enum Column {
    JobColumn,
    KindColumn,
    StateColumn,
    DoneColumn,
    RunningColumn,
    PendingColumn,
    FailedColumn,
    StoredColumn
};

QString jobState(const JobStatus& job) {
    if (job.mergedRun) return QObject::tr("stored");
    if (ClusterJobsView::isComplete(job)) return QObject::tr("finished, not stored yet");
    if (countOf(job, "corrupt") > 0) return QObject::tr("a unit's result is corrupt");
    if (hasLiveUnits(job)) return QObject::tr("running");
    return QObject::tr("stopped: resubmit the failed units");
}

}  // namespace

bool ClusterJobsView::isComplete(const JobStatus& job) {
    return !job.units.empty() && countOf(job, "done") == static_cast<long long>(job.units.size());
}

long long ClusterJobsView::storableUnits(const JobStatus& job) {
    // An audit, a k-scaling and an AdaMix-R experiment are stored as one run from every unit.
    if (storedAsOneRun(job)) return isComplete(job) ? static_cast<long long>(job.units.size()) : 0;
    long long leading = 0;
    for (const auto& u : job.units) {  // in unit order
        if (u.state != "done") break;
        ++leading;
    }
    return leading;
}

ClusterJobsView::ClusterJobsView(ClusterBackend* backend, QWidget* parent)
    : QWidget(parent),
      backend_(backend),
      watcher_(new QFutureWatcher<ClusterStatusReply>(this)),
      poll_(new QTimer(this)),
      tree_(new QTreeWidget),
      autoMerge_(new QCheckBox(tr("Store finished jobs automatically"))),
      refresh_(new QPushButton(tr("Refresh"))),
      merge_(new QPushButton(tr("Store in project"))),
      cancel_(new QPushButton(tr("Cancel job"))),
      resubmit_(new QPushButton(tr("Resubmit failed"))),
      summary_(new QLabel) {
    tree_->setObjectName("clusterJobsTree");
    tree_->setHeaderLabels(
        {tr("Job"), tr("Kind"), tr("State"), tr("Done"), tr("Running"), tr("Pending"), tr("Failed"), tr("Stored as")});
    tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    tree_->setRootIsDecorated(true);
    tree_->setUniformRowHeights(true);
    autoMerge_->setChecked(true);
    autoMerge_->setToolTip(
        tr("When every array task of a job has written its result, store the job's runs in the "
           "project (the same as Store in project; docs/CLUSTER.md)"));
    merge_->setToolTip(
        tr("Store the selected job's results in the project: once, with their ledgers, sealed into "
           "the project's hash chain"));
    cancel_->setToolTip(tr("scancel the selected job's array tasks that have not finished"));
    resubmit_->setToolTip(tr("Submit the selected job's failed array tasks again (one sbatch)"));
    summary_->setWordWrap(true);
    summary_->setObjectName("clusterJobsSummary");

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(autoMerge_);
    buttons->addStretch(1);
    for (QPushButton* b : {refresh_, merge_, cancel_, resubmit_}) buttons->addWidget(b);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(summary_);
    layout->addWidget(tree_, 1);
    layout->addLayout(buttons);

    poll_->setSingleShot(true);
    connect(poll_, &QTimer::timeout, this, &ClusterJobsView::refresh);
    connect(watcher_, &QFutureWatcher<ClusterStatusReply>::finished, this, &ClusterJobsView::onReply);
    connect(refresh_, &QPushButton::clicked, this, &ClusterJobsView::refresh);
    connect(tree_, &QTreeWidget::itemSelectionChanged, this, &ClusterJobsView::updateButtons);
    connect(merge_, &QPushButton::clicked, this, [this] {
        const QString job = selectedJob();
        if (job.isEmpty()) return;
        for (const auto& j : jobs_)
            if (q(j.jobId) == job) mergeAsked_.insert(job, storableUnits(j));
        Q_EMIT mergeRequested(job);
    });
    connect(cancel_, &QPushButton::clicked, this, [this] {
        if (const QString job = selectedJob(); !job.isEmpty()) Q_EMIT cancelRequested(job);
    });
    connect(resubmit_, &QPushButton::clicked, this, [this] {
        if (const QString job = selectedJob(); !job.isEmpty()) Q_EMIT resubmitRequested(job);
    });
    connect(autoMerge_, &QCheckBox::toggled, this, [this](bool on) {
        if (on) requestAutoMerges();
    });
    setProject({}, false);
}

ClusterJobsView::~ClusterJobsView() { watcher_->waitForFinished(); }

void ClusterJobsView::setProject(const QString& path, bool readOnly) {
    if (path != project_) {
        jobs_.clear();
        mergeAsked_.clear();
        tree_->clear();
    }
    project_ = path;
    readOnly_ = readOnly;
    poll_->stop();
    if (!backend_)
        summary_->setText(tr("This build of the workbench has no cluster executor."));
    else if (project_.isEmpty())
        summary_->setText(tr("No project is open."));
    updateButtons();
    refresh();
}

bool ClusterJobsView::isQuerying() const { return watcher_->isRunning() || queryAgain_; }

void ClusterJobsView::refresh() {
    if (!backend_ || project_.isEmpty()) return;
    if (watcher_->isRunning()) {
        queryAgain_ = true;  // asked while a query runs: one more after it
        return;
    }
    startQuery();
}

void ClusterJobsView::startQuery() {
    queryAgain_ = false;
    poll_->stop();
    ClusterBackend* backend = backend_;
    const QString path = project_;
    // squeue/sacct may take seconds (or time out on an unreachable controller): off the GUI thread.
    watcher_->setFuture(QtConcurrent::run([backend, path] {
        ClusterStatusReply reply;
        reply.project = path;
        auto jobs = backend->status(path.toStdString());
        if (jobs)
            reply.jobs = std::move(jobs).value();
        else
            reply.error = q(jobs.error().message);
        return reply;
    }));
}

void ClusterJobsView::onReply() {
    const ClusterStatusReply reply = watcher_->result();
    if (reply.project == project_) {
        if (!reply.error.isEmpty()) {
            summary_->setText(tr("Cannot read the cluster jobs: %1").arg(reply.error));
        } else {
            jobs_ = reply.jobs;
            for (const auto& job : jobs_)
                if (job.mergedRun) mergeAsked_.remove(q(job.jobId));
            rebuildTree();
            requestAutoMerges();
        }
        Q_EMIT statesUpdated();
    }
    if (queryAgain_)
        startQuery();
    else
        schedulePoll();
}

void ClusterJobsView::schedulePoll() {
    // Only Slurm changes a live unit by itself. A merge is a stage of the window, which refreshes
    // the view when it ends: a finished job whose merge failed is not polled again.
    const bool live =
        std::any_of(jobs_.begin(), jobs_.end(), [](const JobStatus& j) { return !j.mergedRun && hasLiveUnits(j); });
    if (live && !project_.isEmpty()) poll_->start(pollIntervalMs_);
}

void ClusterJobsView::rebuildTree() {
    const QString selected = selectedJob();
    QSet<QString> expanded;
    for (int i = 0; i < tree_->topLevelItemCount(); ++i)
        if (tree_->topLevelItem(i)->isExpanded()) expanded.insert(tree_->topLevelItem(i)->text(JobColumn));
    tree_->clear();
    long long live = 0, waiting = 0;
    for (const auto& job : jobs_) {
        auto* row = new QTreeWidgetItem(tree_);
        row->setText(JobColumn, q(job.jobId));
        row->setText(KindColumn, kindLabel(job));
        row->setText(StateColumn, jobState(job));
        row->setText(DoneColumn, QStringLiteral("%1 / %2").arg(countOf(job, "done")).arg(job.units.size()));
        row->setText(RunningColumn, QString::number(countOf(job, "running")));
        row->setText(PendingColumn, QString::number(countOf(job, "pending")));
        row->setText(FailedColumn, QString::number(countOf(job, "failed") + countOf(job, "corrupt")));
        // A run grid stores several runs, the first of which the job records.
        if (job.mergedRun)
            row->setText(StoredColumn, storedAsOneRun(job) ? tr("run %1").arg(*job.mergedRun)
                                                           : tr("runs from %1").arg(*job.mergedRun));
        row->setToolTip(JobColumn, q(job.dir.string()) + (job.slurmNote.empty() ? QString() : "\n" + q(job.slurmNote)));
        for (const auto& unit : job.units) {
            auto* child = new QTreeWidgetItem(row);
            child->setText(JobColumn, tr("unit %1").arg(unit.id));
            QString state = q(unit.state);
            if (!unit.slurmState.empty()) state += QStringLiteral(" (Slurm %1)").arg(q(unit.slurmState));
            child->setText(StateColumn, state);
            QString tip = unit.log.empty() ? QString() : tr("log: %1").arg(q(unit.log));
            if (!unit.detail.empty()) tip += (tip.isEmpty() ? QString() : "\n") + q(unit.detail);
            if (!unit.slurmJobId.empty())
                tip += (tip.isEmpty() ? QString() : "\n") + tr("Slurm job %1").arg(q(unit.slurmJobId));
            for (int c = 0; c <= StoredColumn; ++c) child->setToolTip(c, tip);
            if (unit.state == "failed" || unit.state == "corrupt")
                child->setForeground(StateColumn, QColor(0xb0, 0x20, 0x20));
        }
        row->setExpanded(expanded.contains(q(job.jobId)));
        if (!job.mergedRun) (hasLiveUnits(job) ? live : waiting) += 1;
    }
    if (jobs_.empty()) {
        summary_->setText(tr("No cluster jobs: Run ▸ Run on cluster… submits one (docs/CLUSTER.md)."));
    } else {
        QString text = jobs_.size() == 1 ? tr("1 job") : tr("%1 jobs").arg(jobs_.size());
        if (live > 0) text += tr("; %1 running (refreshed every %2 s)").arg(live).arg(pollIntervalMs_ / 1000.0);
        if (waiting > 0) text += tr("; %1 not stored yet").arg(waiting);
        if (!jobs_.front().slurmNote.empty()) text += " — " + q(jobs_.front().slurmNote);
        summary_->setText(text);
    }
    if (!selected.isEmpty()) selectJob(selected);
    updateButtons();
}

void ClusterJobsView::requestAutoMerges() {
    if (readOnly_ || !autoMerge_->isChecked()) return;
    for (const auto& job : jobs_) {
        const QString id = q(job.jobId);
        const long long storable = storableUnits(job);
        if (job.mergedRun || storable == 0 || mergeAsked_.value(id, 0) >= storable) continue;
        mergeAsked_.insert(id, storable);
        Q_EMIT mergeRequested(id);
    }
}

void ClusterJobsView::selectJob(const QString& jobId) {
    for (int i = 0; i < tree_->topLevelItemCount(); ++i)
        if (tree_->topLevelItem(i)->text(JobColumn) == jobId) tree_->setCurrentItem(tree_->topLevelItem(i));
}

QString ClusterJobsView::selectedJob() const {
    QTreeWidgetItem* item = tree_->currentItem();
    if (!item || !item->isSelected()) return {};
    while (item->parent()) item = item->parent();
    return item->text(JobColumn);
}

void ClusterJobsView::updateButtons() {
    const QString id = selectedJob();
    const JobStatus* job = nullptr;
    for (const auto& j : jobs_)
        if (q(j.jobId) == id) job = &j;
    const bool writable = backend_ && !readOnly_ && !project_.isEmpty();
    refresh_->setEnabled(backend_ && !project_.isEmpty());
    merge_->setEnabled(writable && job && !job->mergedRun && storableUnits(*job) > 0);
    cancel_->setEnabled(writable && job && !job->mergedRun && hasLiveUnits(*job));
    resubmit_->setEnabled(writable && job && !job->mergedRun && countOf(*job, "failed") > 0);
}

}  // namespace dpmix::workbench
