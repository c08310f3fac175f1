#pragma once
// The Cluster jobs dock (docs/WORKBENCH.md, "Cluster jobs"): the open project's Slurm jobs, one
// row each with its units' states (done / running / pending / failed), expandable to the units
// (Slurm state, log file). It asks for the states off the GUI thread, again every few seconds
// while a unit is still pending or running, and asks for a merge (automatically unless switched
// off, or with Store in project) of each job whose units are all done, and of a run grid or sweep
// as soon as more of its leading units are done — their runs land while the rest still run: the
// window runs the merge as a stage of the Jobs dock, and the result views update when it ends. Cancel and Resubmit
// failed act on the selected job. Read-only projects are shown, never merged into.
#include "engine/executor/cluster_jobs.h"

#include <QFutureWatcher>
#include <QHash>
#include <QString>
#include <QWidget>

#include <vector>

class QCheckBox;
class QLabel;
class QPushButton;
class QTimer;
class QTreeWidget;

namespace dpmix::workbench {

class ClusterBackend;

/// One answer of ClusterBackend::status, for the project it was asked for.
struct ClusterStatusReply {
    QString project;
    std::vector<executor::cluster::JobStatus> jobs;
    QString error;
};

class ClusterJobsView : public QWidget {
    Q_OBJECT

public:
    /// `backend` may be null (a build without the cluster executor): the view then says so.
    explicit ClusterJobsView(ClusterBackend* backend, QWidget* parent = nullptr);
    ~ClusterJobsView() override;

    /// The project whose jobs are shown (empty: none); asks for their states at once.
    void setProject(const QString& path, bool readOnly);
    /// Asks for the states now (a query already running is answered first, then this one).
    void refresh();
    void setPollIntervalMs(int ms) { pollIntervalMs_ = ms; }
    bool isQuerying() const;

    QTreeWidget* tree() const { return tree_; }
    QCheckBox* autoMergeBox() const { return autoMerge_; }
    QPushButton* mergeButton() const { return merge_; }
    QPushButton* cancelButton() const { return cancel_; }
    QPushButton* resubmitButton() const { return resubmit_; }
    QLabel* summaryLabel() const { return summary_; }
    const std::vector<executor::cluster::JobStatus>& jobs() const { return jobs_; }
    /// Selects a job's row (tests, and the window after a submission).
    void selectJob(const QString& jobId);
    QString selectedJob() const;

    /// Whether every unit of `job` has its result (the job can be merged).
    static bool isComplete(const executor::cluster::JobStatus& job);
    /// How many of the job's units, from unit 0 on, have their result: what a merge can store
    /// now (the whole job for an audit only once complete).
    static long long storableUnits(const executor::cluster::JobStatus& job);

Q_SIGNALS:
    /// The window runs these as stages (they write the project, or call Slurm).
    void mergeRequested(const QString& jobId);
    void cancelRequested(const QString& jobId);
    void resubmitRequested(const QString& jobId);
    /// A status answer arrived and the tree shows it.
    void statesUpdated();

private:
    void startQuery();
    void onReply();
    void rebuildTree();
    void requestAutoMerges();
    void updateButtons();
    void schedulePoll();

    ClusterBackend* backend_;
    QString project_;
    bool readOnly_ = false;
    int pollIntervalMs_ = 10000;
    bool queryAgain_ = false;
    std::vector<executor::cluster::JobStatus> jobs_;
    // Per job, the storable units when a merge was last asked for: asked again automatically only
    // when more units can be stored (a failing merge is not repeated until the user asks).
    QHash<QString, long long> mergeAsked_;
    QFutureWatcher<ClusterStatusReply>* watcher_;
    QTimer* poll_;
    QTreeWidget* tree_;
    QCheckBox* autoMerge_;
    QPushButton* refresh_;
    QPushButton* merge_;
    QPushButton* cancel_;
    QPushButton* resubmit_;
    QLabel* summary_;
};

}  // namespace dpmix::workbench
