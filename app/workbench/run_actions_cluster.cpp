// RunActions' "Run on cluster…" (docs/CLUSTER.md, "From the workbench"): Run DP-MixMin, Compare
// with baselines and the mixture audit submitted to Slurm as one job array; the Cluster jobs dock
// (cluster_jobs_view.h) follows the job and stores its results.
#include "app/workbench/run_actions.h"

#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/runs/cluster_backend.h"
#include "app/workbench/runs/cluster_run_dialog.h"

#include <QAction>
#include <QMessageBox>

namespace dpmix::workbench {

QString RunActions::clusterUnavailable() const {
    ClusterBackend* backend = parts_.cluster;
    if (!backend) return tr("This build of the workbench has no cluster executor.");
    if (auto cannot = backend->canSubmit()) return QString::fromStdString(cannot->message);
    return {};
}

void RunActions::updateClusterEnabled(bool canRun) {
    const QString why = clusterUnavailable();
    cluster_->setEnabled(canRun && why.isEmpty());
    cluster_->setToolTip(why.isEmpty() ? tr("Submit Run DP-MixMin or Compare with baselines to Slurm as one job array, "
                                            "one array task per seed (with secret randomness every attempt at a task "
                                            "is a release of its own; docs/CLUSTER.md)")
                                       : why);
    cluster_->setStatusTip(cluster_->toolTip());
}

QString RunActions::startOnCluster(RunKind kind, const ClusterSubmission& submission) {
    RunAction action;
    action.kind = kind;
    action.parameters = window_->document()->values();
    action.cluster = submission;
    return start(action);
}

QString RunActions::startAuditOnCluster(const AuditSettings& settings, const ClusterSubmission& submission) {
    RunAction action;
    action.kind = RunKind::Audit;
    action.parameters = window_->document()->values();
    action.audit = settings;
    action.cluster = submission;
    return start(action);
}

QString RunActions::startEpsilonSweepOnCluster(const SweepScope& scope, const ClusterSubmission& submission) {
    RunAction action;
    action.kind = RunKind::EpsilonSweep;
    action.parameters = window_->document()->values();
    action.sweep = scope;
    action.cluster = submission;
    return start(action);
}

namespace {

// What a cluster run costs, by its randomness (docs/CLUSTER.md, "Secret runs"): a secret one is a
// release and every attempt at a task is counted; a reproducible one is repeated for free.
QString randomnessNote(bool reproducible) {
    if (reproducible)
        return "<p>" +
               QObject::tr(
                   "<b>Reproducible:</b> every task's DP noise derives from its seed, so the runs are not a "
                   "release, and a task run again (Resubmit failed, a Slurm requeue) repeats them and costs "
                   "nothing more.") +
               "</p>";
    return "<p>" +
           QObject::tr(
               "<b>Secret randomness: this is a release.</b> The whole grid's releases are reserved on the "
               "data set's budget when you submit (refused over its cap). <b>Every attempt at a task is a "
               "release of its own:</b> a task that is resubmitted (Resubmit failed) or requeued by Slurm "
               "reserves its seed's releases again before it runs — refused over the cap — and they stay "
               "counted even if its runs are never stored. The budget store must be on a file system the "
               "nodes share; <i>dpmix budget</i> lists every attempt.") +
           "</p>";
}

}  // namespace

void RunActions::runSweepOnClusterDialog(const SweepScope& scope) {
    const widgets::RunParameters p = window_->document()->values();
    QString what = tr("<b>ε sweep</b> of the panel's study (%1) with seeds %2: one array task per seed, "
                      "each running every ε of its seed exactly as a local sweep does.")
                       .arg(sweepScopeText(scope).toHtmlEscaped(), p.seeds.toHtmlEscaped()) +
                   randomnessNote(p.reproducible);
    ClusterRunDialog dialog(what, 0, window_);
    dialog.hideStudyKind();  // the sweep is chosen already
    if (dialog.exec() != QDialog::Accepted) return;
    if (QString e = startEpsilonSweepOnCluster(scope, dialog.submission()); !e.isEmpty())
        QMessageBox::warning(window_, tr("Run on cluster"), e);
}

void RunActions::runClusterDialog() {
    const widgets::RunParameters p = window_->document()->values();
    QString what = tr("<b>The panel's study</b> at ε = %1 with seeds %2: one array task per seed, each running every "
                      "task, ε and method of its seed exactly as a local run does.")
                       .arg(p.epsilon)
                       .arg(p.seeds.toHtmlEscaped());
    what += randomnessNote(p.reproducible);
    ClusterRunDialog dialog(what, 0, window_);
    if (dialog.exec() != QDialog::Accepted) return;
    if (QString e = startOnCluster(dialog.studyKind(), dialog.submission()); !e.isEmpty())
        QMessageBox::warning(window_, tr("Run on cluster"), e);
}

}  // namespace dpmix::workbench
