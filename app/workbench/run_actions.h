#pragma once
// The workbench's run actions beyond "Run DP-MixMin": Compare with baselines, ε sweep, Audit,
// Generate private set (PSG)
// (Run menu and toolbar), Re-run / Pin as baseline / Compare on the runs of the project tree
// (context menu), and File ▸ Export report…. Each run action becomes a background job of the
// window's JobRunner (stage, progress, elapsed, ETA, Cancel in the jobs dock). The run actions
// follow "Run DP-MixMin"'s enabled state, so they are off while the spec is invalid and in
// read-only mode. The dialog-free entry points return an empty string or the message the
// status bar shows; the tests drive those.
#include "app/workbench/runs/run_action.h"
#include "app/workbench/views/report_writer.h"

#include <QList>
#include <QObject>
#include <QString>

#include <optional>
#include <vector>

class QAction;
class QTabWidget;
class QTreeWidget;
class QMenu;
class QToolBar;

namespace dpmix::workbench {

class ClusterBackend;
class MainWindow;
class RunController;

/// What the status bar and the Undo action say: runs are never undone.
QString spentPrivacyNotice();

class RunActions : public QObject {
    Q_OBJECT

public:
    /// The window's parts the run actions work with, handed over by the window that owns them:
    /// Run DP-MixMin (the run actions follow its enabled state), the project tree (the selected
    /// runs, the context menu), the analysis tabs (the report's plots) and the cluster backend
    /// (null: this build has none).
    struct WindowParts {
        QAction* runAction = nullptr;
        QTreeWidget* projectTree = nullptr;
        QTabWidget* analysisTabs = nullptr;
        ClusterBackend* cluster = nullptr;
    };
    RunActions(MainWindow* window, WindowParts parts, RunController* runs);

    /// Adds the run actions to `runMenu` and a "Run" toolbar, the run-comparison action to
    /// `runMenu`, and Export report… to `fileMenu` before `beforeInFile`.
    void addToMenus(QMenu* fileMenu, QAction* beforeInFile, QMenu* runMenu);

    QAction* compareAction() const { return compare_; }
    /// Checked: Compare with baselines learns DP-MixMin's λ again instead of reusing the project's release.
    QAction* relearnMixtureAction() const { return relearnMixture_; }
    QAction* sweepAction() const { return sweep_; }
    QAction* auditAction() const { return audit_; }
    QAction* privateSetAction() const { return psg_; }
    QAction* compareRunsAction() const { return compareRuns_; }
    QAction* exportReportAction() const { return exportReport_; }
    /// Run ▸ Run on cluster… (enabled with the run actions when sbatch is on PATH).
    QAction* clusterAction() const { return cluster_; }
    QToolBar* toolBar() const { return toolBar_; }

    /// Plans `action` with the RunController and starts its jobs (refused in read-only mode,
    /// and, except for re-runs, while the panel's values are invalid).
    QString start(const RunAction& action);
    QString startCompareWithBaselines();
    QString startEpsilonSweep(const SweepScope& scope);
    QString startAudit(const AuditSettings& settings);
    /// A one-run audit of a stored downstream run's fine-tuning: the run's mechanism, task, seed
    /// and ε (the claim), the dialog's canaries. An error names why the run cannot be audited so.
    QString startOneRunAuditOf(long long runId, const AuditSettings& settings);
    /// The Audit dialog preset for a downstream run's fine-tuning in one training (its context menu's
    /// "Audit this fine-tuning (one run)…"); empty when the run has no auditable fine-tuning, else why not.
    QString oneRunAuditRefusal(long long runId) const;
    QString startPrivateSet(const PsgSettings& settings);
    /// Run on cluster (run_actions_cluster.cpp): Run DP-MixMin or Compare with baselines with the
    /// panel's values, or a mixture audit, submitted to Slurm as one job array.
    QString startOnCluster(RunKind kind, const ClusterSubmission& submission);
    QString startAuditOnCluster(const AuditSettings& settings, const ClusterSubmission& submission);
    QString startEpsilonSweepOnCluster(const SweepScope& scope, const ClusterSubmission& submission);
    /// Why this host cannot submit (empty: it can).
    QString clusterUnavailable() const;
    /// Repeats a stored run with its stored configuration, on `newSeed` if given.
    QString rerun(long long runId, std::optional<long long> newSeed = std::nullopt);

    /// Opens a comparison tab for these runs (two or more).
    QString compareRuns(const std::vector<long long>& runIds);
    /// The runs selected in the project tree, in tree order.
    std::vector<long long> selectedRunIds() const;
    QString pinBaseline(long long runId);
    QString unpinBaseline();

    /// The context menu of a run item (caller owns it): Show run details, Re-run, Re-run with a
    /// new seed…, Pin as baseline, Compare selected runs.
    QMenu* contextMenuForRun(long long runId);

    /// Follows "Run DP-MixMin", read-only mode and whether a project is open (MainWindow calls it
    /// when those change).
    void updateEnabled();

    /// The result views as images (each chart of each result tab), for the report.
    QList<ReportPlot> reportPlots() const;
    QString exportReport(const QString& htmlPath, bool withPdf = true);

private:
    void showStatus(const QString& message, int timeoutMs = 8000);
    void onTreeContextMenu(const QPoint& pos);
    void runSweepDialog();
    void runAuditDialog();
    void runOneRunAuditDialog(long long runId);
    void runClusterDialog();
    void runSweepOnClusterDialog(const SweepScope& scope);
    void updateClusterEnabled(bool canRun);
    void runPsgDialog();
    void exportReportWithDialog();

    MainWindow* window_;
    WindowParts parts_;
    RunController* runs_;
    QAction* compare_;
    QAction* relearnMixture_;
    QAction* sweep_;
    QAction* audit_;
    QAction* psg_;
    QAction* compareRuns_;
    QAction* exportReport_;
    QAction* cluster_;
    QToolBar* toolBar_ = nullptr;
};

}  // namespace dpmix::workbench
