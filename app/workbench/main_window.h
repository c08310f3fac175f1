#pragma once
// The workbench's one main window: project tree dock (left), tabbed analysis area (centre,
// starting with the privacy calculator), parameter panel dock (right), jobs dock (bottom),
// File/Edit/View/Run/Help menus, status bar. Engine access goes through the two seams in
// WorkbenchServices, so the window runs (and is tested) without the pipeline or project file.
#include "app/workbench/help/about_info.h"
#include "app/workbench/help/help_topics.h"
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/runs/job_runner.h"
#include "app/workbench/runs/private_set_images.h"
#include "app/workbench/runs/run_action.h"
#include "engine/core/result.h"
#include "engine/experiments/regime_map.h"
#include "widgets/run_parameters.h"

#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

class QMenu;
class QTabWidget;
class QTreeWidget;
class QTreeWidgetItem;
class QLabel;
class QAction;
class QTimer;
class QPlainTextEdit;
class QDockWidget;

namespace dpmix::widgets {
class JobListWidget;
class BudgetMeter;
class ParameterPanel;
class PrivacyCalculatorPanel;
}  // namespace dpmix::widgets

namespace dpmix::project {
struct ReleaseOptions;
}

namespace dpmix::workbench {

class LatestResultRunner;
class RunActions;
class PrivateSetView;
class RegimeMapDialog;
class RunDetailsView;
class HelpWindow;
class ParameterDocument;
class ProjectStore;
class RunController;
class SourcePreviewer;
class StudyController;
class StudyCreator;
struct StageJob;
class StageQueue;
class ClusterBackend;
class ClusterJobsView;
struct SpendPreview;
struct PrivacyPlan;

struct WorkbenchServices {
    RunController* runs = nullptr;             // not owned; must outlive the window
    ProjectStore* projects = nullptr;          // not owned; must outlive the window
    std::function<QString()> torchVersion;     // asked when the About box opens
    std::function<bool()> cudaAvailable;       // whether Run ▸ Compute device offers CUDA (unset: no)
    const SourcePreviewer* sources = nullptr;  // not owned; previews in the registration dialogs (null: off)
    StudyCreator* studies = nullptr;           // not owned; saves a registered study as a .dpmix
    /// Asked before a run that spends privacy budget, with what it would spend; false cancels.
    /// With preview.overCap it only informs (the run is refused). Unset: no question asked (the
    /// over-cap refusal still stands). The program sets a dialog; tests set a recorder.
    std::function<bool(const SpendPreview&)> confirmSpend;
    /// Slurm (Run on cluster…, the Cluster jobs dock); not owned, must outlive the window. Null:
    /// the dock says the build has no cluster executor and Run on cluster… is disabled.
    ClusterBackend* cluster = nullptr;
    /// The regime map the panel's "Will public data help?" and Help ▸ Where public data pays read;
    /// not owned, must outlive the window. Null: the reference map bundled with the program
    /// (parameters/regime_reference.h).
    const Result<experiments::RegimeMap>* regimeMap = nullptr;
};

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(WorkbenchServices services, QWidget* parent = nullptr);
    ~MainWindow() override;

    // The window's parts (the panels, the tabs, the tree, the job list and runner, the log, the
    // trust banner, Run DP-MixMin, Export release…) have no getters: a test or a tool finds them by
    // their object names (tests/app/workbench/window_parts.h); a controller gets the parts it
    // works with when it is made (RunActions::WindowParts).

    /// The panel's values and their undo stack: what a run, a save and the previews read.
    ParameterDocument* document() const { return document_; }

    QString currentFile() const { return currentFile_; }
    QStringList recentFiles() const;
    bool isReadOnly() const { return readOnly_; }
    /// Compare with baselines, ε sweep, Audit, re-run, run comparison, report (run_actions.h).
    RunActions* runActions() const { return runActions_; }
    /// Building a new study: registration dialogs, drops on the tree, the draft (study_controller.h).
    StudyController* study() const { return study_; }
    /// The project's data as last read (null when no project is open).
    const ProjectSnapshot* project() const { return project_ ? &*project_ : nullptr; }

    /// File operations without dialogs; return an empty string or the error shown to the user.
    /// `readOnly`: nothing is run or saved; run actions are disabled and the title says so.
    QString openFile(const QString& path, bool readOnly = false);
    /// File ▸ New from spec without the dialog: creates the project next to the spec and opens it.
    QString newFromSpec(const QString& specPath);
    /// File ▸ Export release… without the dialog: writes a DP release of the open project's
    /// chosen runs (main_window_release.cpp); returns an empty string or the error shown.
    QString exportRelease(const QString& target, const project::ReleaseOptions& options);
    /// Rereads the project and rebuilds the tree and the result tabs.
    void refreshProject();
    void updateBudgetMeter();
    /// Appends a line to the log dock (GUI thread).
    void appendLog(const QString& line);
    QString saveTo(const QString& path);
    void newProject();
    /// Study ▸ Edit sources and tasks… (a project without runs) and Duplicate study with
    /// changes… (any project), without dialogs (main_window_study.cpp): the project becomes a
    /// draft with the panel's settings; Save replaces the project, or asks for a new name.
    /// Return an empty string or why not.
    QString editStudySources();
    QString duplicateStudy();
    /// A new, edited or duplicated study that is not saved yet.
    bool hasUnsavedDraft() const;
    /// Why Run cannot start on an unsaved draft (every run records into the project file Save
    /// writes); empty when there is no such draft.
    QString unsavedDraftRefusal() const;

    /// Queues the jobs of one request (a run, a sweep, an audit): they run one after another, each
    /// when the previous one succeeded; other requests wait their turn and never share its fate.
    void startStages(const QList<StageJob>& stages);

    /// Brings a part of the window to the front: "main", "calculator", "parameters", "jobs",
    /// and with a project open the result tabs "lambda", "ledger", "trajectory", "tradeoff",
    /// "auc", "perplexity", "audit", "kscaling".
    bool showView(const QString& name);
    static QStringList viewNames();
    /// Help ▸ Manual (F1): the bundled manual at `topic`, by default the section of the current view.
    HelpWindow* showHelp(std::optional<HelpTopic> topic = std::nullopt);
    /// S of a running PSG job, in the Private set tab (opened if needed).
    void showLivePrivateSet(const PrivateSetImages& set);
    /// The Run details tab (main_window_run_details.cpp), opened if needed and brought to the
    /// front, showing run `runId` — by default the tree's current run, else the run it already
    /// shows, else the newest finished DP-MixMin run. Double-click or Enter on a run of the tree
    /// and its context menu's "Show run details" open it; while open it follows the tree.
    RunDetailsView* showRunDetails(std::optional<long long> runId = std::nullopt);
    /// Help ▸ Where public data pays (regime map)… (main_window_regime.cpp): the heat map of the
    /// regime map, opened on the open study's pool kind; made once, then raised.
    RegimeMapDialog* showRegimeMap();
    /// Adds a closable tab to the analysis area and shows it.
    void addAnalysisTab(QWidget* page, const QString& title);

    AboutInfo aboutInfo() const;
    /// True when no live calculation is pending (for screenshots and tests).
    bool calculationsIdle() const;

    /// Re-validates now (synchronously) and, if valid, asks the RunController for the jobs.
    void requestRun();
    /// Before a run that spends privacy budget: what it would spend (before → after) is shown
    /// through WorkbenchServices::confirmSpend — the engine's plan when the run controller has one,
    /// else the panel's estimate; false when declined or over the cap.
    bool confirmSpending(const RunAction& action, const PrivacyPlan& plan);
    /// The confirm dialog's line on how long `action` would take here (empty: no estimate).
    QString estimatedDuration(const RunAction& action);
    /// The same before an ε sweep: every ε's DP-MixMin releases on the chosen tasks.
    bool confirmSweepSpending(const widgets::RunParameters& values, const SweepScope& scope);
    /// The same before Generate private set (PSG): PSG's release and its DP-SGD reference's.
    bool confirmPrivateSetSpending(const widgets::RunParameters& values, const PsgSettings& settings);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    /// The open Run details tab, or null.
    RunDetailsView* runDetailsView() const;
    bool confirmPreview(const Result<SpendPreview>& preview);
    void buildCalculatorTab();
    void buildStudyController();
    void connectJobs();
    void buildDocks();
    void buildClusterDock(QDockWidget* tabbedWith);  // main_window_cluster.cpp
    /// A stage of the Jobs dock that acts on one cluster job: stores it in the project ("merge"),
    /// cancels it or resubmits its failed units.
    void startClusterStage(const QString& what, const QString& jobId);
    void buildMenus();
    QAction* buildFileMenu(QMenu* file);
    void buildViewMenu();
    void buildRunMenu(QMenu* run, QMenu* file, QAction* quit);
    void buildHelpMenu();
    void restoreWindowState();
    void saveWindowState();
    void onParametersChanged();
    /// "Will public data help?" for the open study and the panel's ε (main_window_regime.cpp).
    void updatePublicDataAdvice();
    const Result<experiments::RegimeMap>& regimeMap() const;
    /// k of the open project, or of the draft (the ρ guidance depends on it).
    long long studyComponents() const;
    void onCalculatorInputs();
    void updateTitle();
    void updateJobStatus();
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    bool maybeSave();
    void addStudyActions(QMenu* study);
    void updateStudyActions();
    void turnProjectIntoDraft(const QString& replaces);
    bool saveWithDialog(bool forceDialog);
    void openWithDialog();
    void showAbout();
    void onJobFinished(int jobId, JobOutcome outcome, const QString& message);
    void populateTree();
    void rebuildResultTabs();
    struct ResultPage;
    QList<ResultPage> resultPages(bool mixtureStudy);
    void addResultTab(const ResultPage& page, const QString& study, const QString& current, bool mixtureStudy);
    void addPrivateSetTab(const QString& current, bool mixtureStudy);
    void applyReadOnly();
    void updateTrustBanner();
    void exportReleaseWithDialog();
    void connectRunDetails();
    void refreshRunDetails();  // after the project was reread: the same run's new data, or the empty state

    WorkbenchServices services_;
    ParameterDocument* document_;
    JobRunner* runner_;
    LatestResultRunner* planRunner_;
    QTimer* computingTimer_ = nullptr;  // shows "computing…" when a plan takes noticeably long
    LatestResultRunner* calculatorRunner_;
    QTabWidget* tabs_;
    QTreeWidget* tree_;
    widgets::ParameterPanel* parameters_;
    widgets::PrivacyCalculatorPanel* calculator_;
    widgets::JobListWidget* jobs_;
    widgets::BudgetMeter* budgetMeter_;
    QMenu* recentMenu_ = nullptr;
    QLabel* jobStatus_ = nullptr;
    QLabel* trustBanner_ = nullptr;
    QAction* exportReleaseAction_ = nullptr;
    QString currentFile_;
    long long planComponents_ = -1;  // the k the panel's last plan was computed with
    QString draftReplaces_;          // the runless project an edited draft replaces on Save ("" otherwise)
    QString lastSaveTyped_;          // a new study's path whose Save failed: proposed again, not forgotten
    QAction* editStudyAction_ = nullptr;
    QAction* duplicateStudyAction_ = nullptr;
    StageQueue* queue_ = nullptr;
    bool readOnly_ = false;
    std::optional<ProjectSnapshot> project_;
    PrivateSetView* privateSetView_ = nullptr;
    QPointer<RunDetailsView> runDetails_;  // the Run details tab while it is open (it can be closed)
    HelpWindow* help_ = nullptr;
    bool justOpened_ = false;     // openFile() is rereading the project  // in resultTabs_ when the project has PSG
    QList<QWidget*> resultTabs_;  // lambda, ledger, trajectory, trade-off (rebuilt on refresh)
    QAction* runAction_ = nullptr;
    RunActions* runActions_ = nullptr;
    QList<QAction*> writeActions_;  // disabled while read-only
    QPlainTextEdit* log_ = nullptr;
    StudyController* study_ = nullptr;
    ClusterJobsView* clusterJobs_ = nullptr;
    RegimeMapDialog* regimeMapDialog_ = nullptr;
};

}  // namespace dpmix::workbench
