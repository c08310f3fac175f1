// MainWindow's Cluster jobs dock (docs/WORKBENCH.md, "Cluster jobs"): the view polls the
// project's Slurm jobs; what it asks for — storing a finished job in the project, cancelling a
// job, resubmitting its failed units — runs as a stage of the Jobs dock, so a merge never races
// another writer of the window and the result views update when it ends.
#include "app/workbench/main_window.h"

#include "app/workbench/runs/cluster_backend.h"
#include "app/workbench/runs/cluster_jobs_view.h"
#include "app/workbench/runs/run_controller.h"
#include "engine/project/project_file.h"

#include <QDockWidget>
#include <QMetaObject>

namespace dpmix::workbench {

void MainWindow::buildClusterDock(QDockWidget* tabbedWith) {
    clusterJobs_ = new ClusterJobsView(services_.cluster);
    clusterJobs_->setObjectName("clusterJobsView");
    auto* dock = new QDockWidget(tr("Cluster jobs"), this);
    dock->setObjectName("clusterJobsDock");
    dock->setWidget(clusterJobs_);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    tabifyDockWidget(tabbedWith, dock);
    connect(clusterJobs_, &ClusterJobsView::mergeRequested, this,
            [this](const QString& job) { startClusterStage(QStringLiteral("merge"), job); });
    connect(clusterJobs_, &ClusterJobsView::cancelRequested, this,
            [this](const QString& job) { startClusterStage(QStringLiteral("cancel"), job); });
    connect(clusterJobs_, &ClusterJobsView::resubmitRequested, this,
            [this](const QString& job) { startClusterStage(QStringLiteral("resubmit"), job); });
}

void MainWindow::startClusterStage(const QString& what, const QString& jobId) {
    ClusterBackend* backend = services_.cluster;
    if (!backend || currentFile_.isEmpty() || readOnly_) return;
    // Log lines reach the Log dock on the GUI thread, whichever thread the stage runs on.
    auto log = [this](const QString& line) {
        QMetaObject::invokeMethod(
            this, [this, line] { appendLog(line); }, Qt::QueuedConnection);
    };
    const std::string path = currentFile_.toStdString();
    const std::string job = jobId.toStdString();
    StageJob stage;
    if (what == QLatin1String("merge")) {
        stage.stage = tr("Store cluster job %1 in the project").arg(jobId);
        stage.work = [backend, path, job, log](const CancellationToken&, const ProgressCallback&) -> Status {
            auto file = project::ProjectFile::open(path);  // ProjectFile is one-per-thread
            if (!file) return file.error();
            project::ProjectFile project = std::move(file).value();
            auto reports = backend->merge(project, job);
            if (!reports) return reports.error();
            // A job still running was stored as far as its units go (the summary says how far).
            for (const auto& r : *reports)
                log(QObject::tr("Cluster job %1: %2")
                        .arg(QString::fromStdString(r.jobId),
                             r.alreadyMerged ? QObject::tr("already stored") : QString::fromStdString(r.summary)));
            return std::nullopt;
        };
    } else if (what == QLatin1String("cancel")) {
        stage.stage = tr("Cancel cluster job %1").arg(jobId);
        stage.work = [backend, path, job, log](const CancellationToken&, const ProgressCallback&) -> Status {
            if (auto e = backend->cancel(path, job)) return e;
            log(QObject::tr("Cluster job %1: its unfinished array tasks were cancelled (scancel).")
                    .arg(QString::fromStdString(job)));
            return std::nullopt;
        };
    } else {
        stage.stage = tr("Resubmit the failed units of cluster job %1").arg(jobId);
        stage.work = [backend, path, job, log](const CancellationToken&, const ProgressCallback&) -> Status {
            auto report = backend->resubmitFailed(path, job);
            if (!report) return report.error();
            log(QObject::tr("Cluster job %1: %2 unit(s) resubmitted as Slurm job %3.")
                    .arg(QString::fromStdString(job))
                    .arg(report->units)
                    .arg(QString::fromStdString(report->slurmJobId)));
            return std::nullopt;
        };
    }
    startStages({stage});
}

}  // namespace dpmix::workbench
