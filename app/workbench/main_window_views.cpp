// The main window's analysis area: the result tabs a study gets (rebuilt with the project), the
// private set's live view, the named views (--view, tests), the help window.
#include "app/workbench/main_window.h"

#include "app/workbench/help/help_window.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/views/adamix_view.h"
#include "app/workbench/views/auc_epsilon_view.h"
#include "app/workbench/views/auc_view.h"
#include "app/workbench/views/audit_view.h"
#include "app/workbench/views/chart_views.h"
#include "app/workbench/views/kscaling_view.h"
#include "app/workbench/views/ledger_view.h"
#include "app/workbench/views/perplexity_view.h"
#include "app/workbench/views/private_set_view.h"
#include "app/workbench/views/result_data.h"
#include "app/workbench/views/study_summary.h"
#include "widgets/chart_widget.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>

#include <algorithm>

namespace dpmix::workbench {

namespace {
const QStringList kResultViews = {"summary",    "lambda",     "ledger", "trajectory", "tradeoff", "auc",
                                  "aucepsilon", "perplexity", "audit",  "kscaling",   "adamix",   "exampleprivacy"};
}  // namespace

void MainWindow::rebuildResultTabs() {
    const QString current = tabs_->currentIndex() > 0 ? tabs_->tabText(tabs_->currentIndex()) : QString();
    for (QWidget* page : resultTabs_) {
        if (int i = tabs_->indexOf(page); i >= 0) tabs_->removeTab(i);
        page->deleteLater();
    }
    resultTabs_.clear();
    privateSetView_ = nullptr;
    if (!project_) {
        refreshRunDetails();
        return;
    }
    // A study without public data (a PSG study) has no mixture, λ or fine-tuning to show: only
    // its ledger and its private set.
    const bool mixtureStudy = !project_->spec.publicSources.empty();
    const QString study = QFileInfo(project_->path).completeBaseName();
    for (const ResultPage& page : resultPages(mixtureStudy)) addResultTab(page, study, current, mixtureStudy);
    // PSG's tab: for a study made for it (a psg section) or one that holds a private set.
    if (project_->spec.psg || !privateSetRuns(*project_).empty()) addPrivateSetTab(current, mixtureStudy);
    refreshRunDetails();
}

// Short tab titles, so that a study's tabs fit the analysis area beside both docks; the full
// title is the tab's tooltip and the report's heading.
struct MainWindow::ResultPage {
    QString name;  // "summary", "lambda", ... (the page's object name is name + "View")
    QWidget* page;
    QString title, fullTitle;
};

// The open project's result pages, in tab order. A study without public data (a PSG study) has
// no mixture, λ or fine-tuning to show.
QList<MainWindow::ResultPage> MainWindow::resultPages(bool mixtureStudy) {
    QList<ResultPage> pages;
    auto add = [&](const QString& name, QWidget* page, const QString& title, const QString& fullTitle) {
        pages.append({name, page, title, fullTitle});
    };
    add("summary", new StudySummaryView(*project_), tr("Summary"), tr("Study summary"));
    if (mixtureStudy) add("lambda", new LambdaView(*project_), tr("λ by task"), tr("λ by task"));
    add("ledger", new LedgerView(*project_), tr("Ledger"), tr("Privacy ledger"));
    if (mixtureStudy) {
        // A DP release holds DP-MixMin's λ and ledger but no λ*, baselines or sensitive-data
        // experiments: a page that could only say "nothing here" is left out of a release, and
        // the Summary says what a release leaves out and why.
        const bool release = project_->trust.release;
        auto addUnlessEmptyInRelease = [&](const QString& name, ResultPageView* page, const QString& title,
                                           const QString& fullTitle) {
            if (release && page->showsEmptyState())
                delete page;
            else
                add(name, page, title, fullTitle);
        };
        if (!release || !trajectoryRuns(*project_).empty())
            add("trajectory", new TrajectoryView(*project_), tr("Trajectory"), tr("λ trajectory"));
        auto* tradeoff = new TradeoffView(*project_);
        if (!release || tradeoff->hasSeries())
            add("tradeoff", tradeoff, tr("Trade-off"), tr("Privacy–utility"));
        else
            delete tradeoff;
        // Image studies are read by AUC, text studies by perplexity: the other tab shows only
        // when the project holds such results anyway.
        const bool textStudy = project::isTextStudy(project_->sources);
        auto* auc = new AucView(*project_);
        if (!textStudy || !auc->showsEmptyState())
            addUnlessEmptyInRelease("auc", auc, tr("AUC"), tr("Per-class AUC"));
        else
            delete auc;
        // The teacher's picture, AUC against ε with every method a line: once the study holds a
        // fine-tuned model's AUC (at one ε it offers the sweep that adds more).
        auto* aucEpsilon = new AucEpsilonView(*project_);
        if (!textStudy && aucEpsilon->hasAucResults()) {
            if (runActions_) aucEpsilon->setEmptyStateAction(runActions_->sweepAction());
            addUnlessEmptyInRelease("aucepsilon", aucEpsilon, tr("AUC vs ε"), tr("AUC against ε"));
        } else {
            delete aucEpsilon;
        }
        auto* perplexity = new PerplexityView(*project_);
        if (textStudy || !perplexity->showsEmptyState())
            addUnlessEmptyInRelease("perplexity", perplexity, tr("Perplexity"), tr("Perplexity"));
        else
            delete perplexity;
        auto* audit = new AuditView(*project_);
        if (runActions_) audit->setEmptyStateAction(runActions_->auditAction());  // its empty state offers Audit…
        addUnlessEmptyInRelease("audit", audit, tr("Audit"), tr("Audit"));
        // k-scaling is a command-line experiment (no Run action fills it): its tab only where it ran.
        auto* kscaling = new KScalingView(*project_);
        if (!kscaling->showsEmptyState())
            add("kscaling", kscaling, tr("k-scaling"), tr("k-scaling"));
        else
            delete kscaling;
    }
    // AdaMix-R's experiment: only in projects that ran one.
    if (!project_->adamix.empty()) {
        std::vector<AdamixExperiment> experiments;
        QStringList unreadable;
        for (const auto& reading : project_->adamix) {
            if (reading.experiment)
                experiments.push_back(adamixExperimentFrom(*reading.experiment));
            else
                unreadable << tr("run %1 (%2)").arg(reading.runId).arg(reading.error);
        }
        auto* increase = new AdamixView(experiments);
        increase->setUnreadableRuns(unreadable);
        add("adamix", increase, tr("AdaMix-R"), tr("AdaMix-R: error increase over the paragon"));
        add("exampleprivacy",
            new ExamplePrivacyView(std::move(experiments), projectImageLoader(*project_),
                                   projectEstimatesLoader(project_->path)),
            tr("Who pays"), tr("Who pays for privacy: per-example ε_i (estimates)"));
    }
    return pages;
}

// One result page as a tab that cannot be closed (it is rebuilt with the project); its charts'
// exports report in the status bar.
void MainWindow::addResultTab(const ResultPage& page, const QString& study, const QString& current, bool mixtureStudy) {
    page.page->setObjectName(page.name + "View");
    // Exports propose "<study>-<view>.<suffix>" and say where they went (or why not).
    for (auto* chart : page.page->findChildren<widgets::ChartWidget*>()) {
        chart->setExportName(study + QLatin1Char('-') + page.name);
        connect(chart, &widgets::ChartWidget::exported, this,
                [this](const QString& path) { statusBar()->showMessage(tr("Plot saved to %1").arg(path), 10000); });
        connect(chart, &widgets::ChartWidget::exportFailed, this, [this](const QString& message) {
            statusBar()->showMessage(message, 15000);
            QMessageBox::warning(this, tr("Export plot"), message);
        });
    }
    const int index = tabs_->addTab(page.page, page.title);
    tabs_->setTabToolTip(index, page.fullTitle);
    tabs_->tabBar()->setTabButton(index, QTabBar::RightSide, nullptr);  // rebuilt with the project
    resultTabs_ << page.page;
    if (page.title == current) tabs_->setCurrentIndex(index);
    // A reviewer opening a study sees its summary first (a PSG study: its private set, below).
    if (justOpened_ && mixtureStudy && page.name == "summary") tabs_->setCurrentIndex(index);
}

void MainWindow::addPrivateSetTab(const QString& current, bool mixtureStudy) {
    privateSetView_ = new PrivateSetView(*project_);
    privateSetView_->setObjectName("privatesetView");
    connect(privateSetView_, &PrivateSetView::exported, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    const int index = tabs_->addTab(privateSetView_, tr("Private set"));
    tabs_->tabBar()->setTabButton(index, QTabBar::RightSide, nullptr);
    resultTabs_ << privateSetView_;
    if (current == tr("Private set") || (justOpened_ && !mixtureStudy)) tabs_->setCurrentIndex(index);
}

void MainWindow::showLivePrivateSet(const PrivateSetImages& set) {
    if (!privateSetView_) {  // a study without a psg section: its first set opens the tab
        if (!project_) return;
        privateSetView_ = new PrivateSetView(*project_);
        privateSetView_->setObjectName("privatesetView");
        const int index = tabs_->addTab(privateSetView_, tr("Private set"));
        tabs_->tabBar()->setTabButton(index, QTabBar::RightSide, nullptr);
        resultTabs_ << privateSetView_;
    }
    privateSetView_->showLive(set);
}

HelpWindow* MainWindow::showHelp(std::optional<HelpTopic> topic) {
    if (!help_) help_ = new HelpWindow(this);
    const QWidget* view = tabs_->currentWidget();
    help_->showTopic(topic.value_or(helpTopicFor(view ? view->objectName() : QString())));
    return help_;
}

QStringList MainWindow::viewNames() {
    return QStringList{"main", "calculator", "parameters", "jobs"} + kResultViews +
           QStringList{"privateset", "run-details"};
}

bool MainWindow::showView(const QString& name) {
    if (name == "main") return true;
    if (name == "calculator") {
        tabs_->setCurrentIndex(0);
        return true;
    }
    if (name == "run-details") return project_ && showRunDetails();
    if (name == "privateset") {
        if (!privateSetView_) return false;
        tabs_->setCurrentWidget(privateSetView_);
        return true;
    }
    if (kResultViews.contains(name)) {
        for (QWidget* page : resultTabs_)
            if (page->objectName() == name + "View") {
                tabs_->setCurrentWidget(page);
                return true;
            }
        return false;  // no project open, or not a view of this kind of study
    }
    const QString dockName = name == "parameters" ? "parametersDock" : name == "jobs" ? "jobsDock" : QString();
    if (dockName.isEmpty()) return false;
    if (auto* dock = findChild<QDockWidget*>(dockName)) {
        dock->show();
        dock->raise();
        return true;
    }
    return false;
}

void MainWindow::addAnalysisTab(QWidget* page, const QString& title) {
    tabs_->setCurrentIndex(tabs_->addTab(page, title));
}

}  // namespace dpmix::workbench
