// Stored runs in the window (a generated project, EngineRunController with injected study and
// audit functions): "Re-run with the same settings" hands the study runner the stored
// configuration (new seed optional) and is off in read-only mode; Audit reaches the audit
// function with the dialog's choices; selected runs open a comparison tab; the pinned baseline
// survives reopening the project; File ▸ Export report writes the report of the open project;
// activating a run row (Enter, double-click, "Show run details") shows it in the Run details tab,
// which then follows the tree's current run, survives a refresh and works read-only.
#include "app/workbench/main_window.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/views/run_comparison_view.h"
#include "app/workbench/views/run_details_view.h"
#include "engine/methods/method_plan.h"
#include "tests/app/workbench/generated_project.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"

#include <QAction>
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <atomic>
#include <mutex>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

namespace {
dpmix::Result<dpmix::project::SourceFacts> noData(const dpmix::data::SourceSpec& spec) {
    return dpmix::Error{"no data in this test: " + spec.name};
}

/// Records the requests; succeeds at once without storing anything.
struct Recorder {
    std::mutex lock;
    std::atomic<int> studies{0}, audits{0};
    StudyRequest study;
    AuditRequest audit;

    StudyFunction studyFunction() {
        return [this](dpmix::project::ProjectFile&, const StudyRequest& r, const dpmix::ProgressCallback&,
                      const dpmix::CancellationToken&, const StudyLog&) -> std::optional<dpmix::Error> {
            std::lock_guard<std::mutex> g(lock);
            study = r;
            ++studies;
            return std::nullopt;
        };
    }
    AuditFunction auditFunction() {
        return [this](dpmix::project::ProjectFile&, const AuditRequest& r, const dpmix::ProgressCallback&,
                      const dpmix::CancellationToken&, const StudyLog&) -> std::optional<dpmix::Error> {
            std::lock_guard<std::mutex> g(lock);
            audit = r;
            ++audits;
            return std::nullopt;
        };
    }
};

QTreeWidgetItem* runItem(QTreeWidget* tree, long long id) {
    for (int g = 0; g < tree->topLevelItemCount(); ++g)
        for (int i = 0; i < tree->topLevelItem(g)->childCount(); ++i) {
            QTreeWidgetItem* item = tree->topLevelItem(g)->child(i);
            if (item->data(0, Qt::UserRole).isValid() && item->data(0, Qt::UserRole).toLongLong() == id) return item;
        }
    return nullptr;
}

QAction* actionNamed(QMenu* menu, const QString& prefix) {
    for (QAction* a : menu->actions())
        if (a->text().remove('&').startsWith(prefix)) return a;
    return nullptr;
}
}  // namespace

class TstRunHistory : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    testing::GeneratedProject generated_;
    long long mixtureRun_ = 0;
    long long auditRun_ = 0;
    EngineProjectStore store_{noData};
    Recorder recorder_;
    EngineRunController runs_{recorder_.studyFunction()};

    WorkbenchServices services() {
        return {&runs_, &store_, [] { return QStringLiteral("torch-test"); }};
    }

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_run_history");
        generated_ = testing::generateProject(dir_.path() + "/study.dpmix");
        // Two runs with the configuration the study runner and the audit stage store.
        auto file = dpmix::project::ProjectFile::open(generated_.path.toStdString()).value();
        mixtureRun_ = file.addRun({"dp-mixmin", "ac", 2.0, 0,
                                   R"({"stage":"mixture","method":"dp-mixmin","rho":0.15,"delta":1e-05,"clip":13.0,)"
                                   R"("batch":2,"lr":1.0,"steps":100,"released_iterate":"last"})"})
                          .value();
        (void)file.setRunStatus(mixtureRun_, dpmix::project::RunStatus::Running).value();
        (void)file.setRunStatus(mixtureRun_, dpmix::project::RunStatus::Done).value();
        auditRun_ =
            file.addRun(
                    {"audit", "ac", 1.0, 3,
                     R"({"stage":"audit","canary":"natural","runs_per_world":50,"no_noise":false,)"
                     R"("claimed_epsilon":1.0,"delta":1e-05,"rho":0.1,"clip":13.0,"batch":2,"lr":1.0,"steps":100})"})
                .value();
        (void)file.setRunStatus(auditRun_, dpmix::project::RunStatus::Running).value();
        (void)file.setRunStatus(auditRun_, dpmix::project::RunStatus::Done).value();
    }

    void aStudyOpensOnItsSummaryAndARefreshKeepsTheTab() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        QCOMPARE(analysisTabs(w)->currentWidget()->objectName(), QString("summaryView"));
        analysisTabs(w)->setCurrentIndex(0);  // the calculator
        w.refreshProject();                   // as after a job: the user's tab stays
        QCOMPARE(analysisTabs(w)->currentIndex(), 0);
    }

    void rerunHandsTheStoredConfigurationToTheStudy() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        const int before = recorder_.studies;
        QCOMPARE(w.runActions()->rerun(mixtureRun_, 21), QString());
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished[0][1].value<JobOutcome>(), JobOutcome::Succeeded);
        QCOMPARE(recorder_.studies.load(), before + 1);
        const StudyRequest r = recorder_.study;
        QCOMPARE(r.stages, std::vector<std::string>({"proxies", "mixture"}));
        QCOMPARE(r.epsilons, std::vector<double>({2.0}));
        QCOMPARE(r.rho, 0.15);
        QCOMPARE(r.seeds, std::vector<long long>({21}));
        QCOMPARE(r.tasks, std::vector<std::string>({"ac"}));
        QCOMPARE(*r.mixture, (MixtureSettings{13.0, 2, 1.0, 100}));
        // Without a new seed, the run's own.
        QCOMPARE(w.runActions()->rerun(mixtureRun_), QString());
        QTRY_COMPARE(finished.count(), 2);
        QCOMPARE(recorder_.study.seeds, std::vector<long long>({0}));
        // A run the study runner cannot repeat is refused with the reason.
        QVERIFY(w.runActions()->rerun(generated_.dpRunEpsilon1Seed0).contains("only mixture, downstream and audit"));
        QVERIFY(w.runActions()->rerun(4242).contains("no run 4242"));
    }

    void rerunOfAnAuditNeedsTheAuditStage() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        QVERIFY(w.runActions()->rerun(auditRun_).contains("without the audit stage"));
        runs_.setAuditFunction(recorder_.auditFunction());
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        QCOMPARE(w.runActions()->rerun(auditRun_, 5), QString());
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(recorder_.audit.task, std::string("ac"));
        QVERIFY(recorder_.audit.naturalCanary);
        QCOMPARE(recorder_.audit.runs, 50LL);
        QCOMPARE(recorder_.audit.seed, 5LL);
        runs_.setAuditFunction({});
    }

    void auditActionReachesTheAuditFunction() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        QTRY_VERIFY(w.runActions()->auditAction()->isEnabled());
        QVERIFY(w.runActions()->startAudit({"ac", false, 40, false, 2}).contains("without the audit stage"));
        runs_.setAuditFunction(recorder_.auditFunction());
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        const int before = recorder_.audits;
        QCOMPARE(w.runActions()->startAudit({"ac", false, 40, false, 2}), QString());
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(recorder_.audits.load(), before + 1);
        QVERIFY(!recorder_.audit.naturalCanary);
        QCOMPARE(recorder_.audit.runs, 40LL);
        QVERIFY(recorder_.audit.epsilon && *recorder_.audit.epsilon == 1.0);  // the panel's ε (the spec's first)
        runs_.setAuditFunction({});
    }

    void compareWithBaselinesReachesTheStudyWithTheFiveMethods() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        QTRY_VERIFY(w.runActions()->compareAction()->isEnabled());
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        QCOMPARE(w.runActions()->startCompareWithBaselines(), QString());
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(recorder_.study.stages, std::vector<std::string>({"proxies", "mixture", "downstream"}));
        QCOMPARE(recorder_.study.methods.size(), dpmix::methods::allMethods().size());  // every method
        // The Advanced values are the spec's (batch 2 in the fixture) and travel with the request.
        QCOMPARE(*recorder_.study.mixture, (MixtureSettings{13.0, 2, 1.0, 100}));
    }

    void readOnlyDisablesReRunsButNotComparison() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path, true), QString());
        const int before = recorder_.studies;
        QVERIFY(w.runActions()->rerun(mixtureRun_).contains("read-only"));
        std::unique_ptr<QMenu> menu(w.runActions()->contextMenuForRun(mixtureRun_));
        QVERIFY(!actionNamed(menu.get(), "Re-run with the same settings")->isEnabled());
        QVERIFY(!actionNamed(menu.get(), "Re-run with a new seed")->isEnabled());
        QVERIFY(actionNamed(menu.get(), "Pin as baseline")->isEnabled());
        QCOMPARE(w.runActions()->compareRuns({generated_.dpRunEpsilon1Seed0, generated_.randomSearchRun}), QString());
        QCOMPARE(recorder_.studies.load(), before);
    }

    void selectedRunsOpenAComparisonTab() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        std::unique_ptr<QMenu> menu(w.runActions()->contextMenuForRun(mixtureRun_));
        QVERIFY(actionNamed(menu.get(), "Re-run with the same settings")->isEnabled());
        QVERIFY(!w.runActions()->compareRunsAction()->isEnabled());  // nothing selected yet
        QTreeWidget* tree = projectTree(w);
        runItem(tree, generated_.dpRunEpsilon1Seed0)->setSelected(true);
        runItem(tree, generated_.randomSearchRun)->setSelected(true);
        QCOMPARE(w.runActions()->selectedRunIds(),
                 std::vector<long long>({generated_.randomSearchRun, generated_.dpRunEpsilon1Seed0}));
        menu.reset(w.runActions()->contextMenuForRun(generated_.randomSearchRun));
        QVERIFY(w.runActions()->compareRunsAction()->isEnabled());
        w.runActions()->compareRunsAction()->trigger();
        auto* view = qobject_cast<RunComparisonView*>(analysisTabs(w)->currentWidget());
        QVERIFY(view);
        QVERIFY(analysisTabs(w)->tabText(analysisTabs(w)->currentIndex()).startsWith("Compare runs"));
        QCOMPARE(view->comparison().differingKeys(), QStringList({"method", "epsilon"}));
    }

    void viewMenuOpensRunDetails() {
        MainWindow w(services());
        auto* item = w.findChild<QAction*>("showRunDetails");
        QVERIFY(item);
        item->trigger();  // no project: says what to do
        QVERIFY(!runDetailsView(w));
        QVERIFY(w.statusBar()->currentMessage().contains("Open a project"));
        QCOMPARE(w.openFile(generated_.path), QString());
        item->trigger();
        QVERIFY(runDetailsView(w));
        QCOMPARE(analysisTabs(w)->currentWidget(), runDetailsView(w));
    }

    void activatingARunRowShowsItInRunDetails() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!runDetailsView(w));  // opened on demand
        QTreeWidget* tree = projectTree(w);
        QTreeWidgetItem* dpRun = runItem(tree, generated_.dpRunEpsilon1Seed0);
        tree->setFocus();
        tree->setCurrentItem(dpRun);
        QTest::keyClick(tree, Qt::Key_Return);
        RunDetailsView* pane = runDetailsView(w);
        QVERIFY(pane);
        QCOMPARE(analysisTabs(w)->currentWidget(), pane);
        QCOMPARE(analysisTabs(w)->tabText(analysisTabs(w)->currentIndex()), QString("Run details"));
        QCOMPARE(pane->runId(), std::optional<long long>(generated_.dpRunEpsilon1Seed0));
        QCOMPARE(pane->table(RunDetailsPart::Ledger)->rowCount(), 1);
        QCOMPARE(pane->table(RunDetailsPart::Ledger)->item(0, 0)->text(), QString("mixture"));

        // Double-click on another run row.
        QTreeWidgetItem* random = runItem(tree, generated_.randomSearchRun);
        tree->scrollToItem(random);
        const QPoint at = tree->visualItemRect(random).center();
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(pane->runId(), std::optional<long long>(generated_.randomSearchRun));
        QVERIFY(pane->title()->text().contains("Random search"));

        // While open it follows the tree's current run; a refresh keeps the run shown.
        tree->setCurrentItem(runItem(tree, mixtureRun_));
        QCOMPARE(pane->runId(), std::optional<long long>(mixtureRun_));
        QCOMPARE(pane->table(RunDetailsPart::Config)->item(0, 0)->text(), QString("stage"));
        w.refreshProject();
        QCOMPARE(runDetailsView(w), pane);
        QCOMPARE(pane->runId(), std::optional<long long>(mixtureRun_));

        // The context menu's first action opens it too.
        std::unique_ptr<QMenu> menu(w.runActions()->contextMenuForRun(generated_.dpRunEpsilon1Seed0));
        QAction* details = actionNamed(menu.get(), "Show run details");
        QVERIFY(details && details->isEnabled());
        QCOMPARE(menu->defaultAction(), details);
        analysisTabs(w)->setCurrentIndex(0);
        details->trigger();
        QCOMPARE(analysisTabs(w)->currentWidget(), pane);
        QCOMPARE(pane->runId(), std::optional<long long>(generated_.dpRunEpsilon1Seed0));
    }

    void runDetailsWorkOnAReadOnlyProject() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path, true), QString());
        QVERIFY(w.isReadOnly());
        std::unique_ptr<QMenu> menu(w.runActions()->contextMenuForRun(generated_.randomSearchRun));
        QVERIFY(actionNamed(menu.get(), "Show run details")->isEnabled());
        RunDetailsView* pane = w.showRunDetails(generated_.randomSearchRun);
        QCOMPARE(pane->runId(), std::optional<long long>(generated_.randomSearchRun));
        QVERIFY(!pane->showsEmptyState());
        // A new project empties it: its runs are not this project's.
        w.newProject();
        QVERIFY(pane->showsEmptyState());
        QCOMPARE(pane->emptyState()->text(), QString("Select a run in the project tree"));
    }

    void pinnedBaselineSurvivesReopening() {
        {
            MainWindow w(services());
            QCOMPARE(w.openFile(generated_.path), QString());
            QVERIFY(!w.project()->pinnedBaselineRunId());
            QCOMPARE(w.runActions()->pinBaseline(generated_.randomSearchRun), QString());
            QCOMPARE(w.project()->pinnedBaselineRunId(), std::optional<long long>(generated_.randomSearchRun));
            QVERIFY(w.runActions()->pinBaseline(4242).contains("no run 4242"));
        }
        MainWindow again(services());
        QCOMPARE(again.openFile(generated_.path, true), QString());  // a reviewer may pin too
        QCOMPARE(again.project()->pinnedBaselineRunId(), std::optional<long long>(generated_.randomSearchRun));
        std::unique_ptr<QMenu> menu(again.runActions()->contextMenuForRun(generated_.randomSearchRun));
        QVERIFY(actionNamed(menu.get(), "Unpin baseline"));
        QCOMPARE(again.runActions()->compareRuns({generated_.dpRunEpsilon1Seed0, generated_.randomSearchRun}),
                 QString());
        auto* view = qobject_cast<RunComparisonView*>(analysisTabs(again)->currentWidget());
        QCOMPARE(view->comparison().runIds.front(), generated_.randomSearchRun);
        QCOMPARE(again.runActions()->unpinBaseline(), QString());
        QVERIFY(!again.project()->pinnedBaselineRunId());
    }

    void exportReportWritesTheOpenProject() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path, true), QString());  // reviewers export reports
        QVERIFY(w.runActions()->exportReportAction()->isEnabled());
        QVERIFY(!w.runActions()->reportPlots().isEmpty());  // the result tabs' charts
        const QString html = dir_.path() + "/report.html";
        QCOMPARE(w.runActions()->exportReport(html), QString());
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY(text.contains("data:image/png;base64,"));
        QVERIFY(text.contains("✔ Verified"));
        QVERIFY(text.contains("torch-test"));
        QVERIFY(QFile::exists(dir_.path() + "/report.pdf"));
        const QString bad = dir_.path() + "/missing/report.html";
        QVERIFY(w.runActions()->exportReport(bad).contains("does not exist"));
        QVERIFY(!QDir(dir_.path() + "/missing").exists());
    }
};

QTEST_MAIN(TstRunHistory)
#include "tst_run_history.moc"
