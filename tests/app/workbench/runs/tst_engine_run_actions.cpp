// The real engine behind the run actions (label data): on a copy of the Fashion-MNIST demo
// project, from the window, with pipeline::runStudy and runAuditStage on the worker thread:
// the panel's Advanced values run and are what the stored runs record; a stored DP-MixMin
// run re-run on a new seed stores the same configuration for the same task and ε; the ε sweep
// stores one DP run per task and ε; an audit is stored with the dialog's choices. Skipped
// without the demo project (scripts/make-screenshots.sh or `dpmix run projects/fashion-mnist.json`).
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "tests/app/workbench/demo_project_copy.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <QAction>
#include <QDir>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

namespace {

int countRuns(const ProjectSnapshot& p, const std::string& method, long long seed, std::optional<double> epsilon = {}) {
    int n = 0;
    for (const auto& r : p.runs)
        if (r.run.method == method && r.run.seed == seed && r.run.status == dpmix::project::RunStatus::Done &&
            (!epsilon || (r.run.epsilon && *r.run.epsilon == *epsilon)))
            ++n;
    return n;
}
}  // namespace

class TstEngineRunActions : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString project_;
    EngineProjectStore store_{summarizeWithDataLayer};
    EngineRunController runs_{runStudyWithEngine};

    /// Waits for the next job end and returns its outcome and message.
    static QPair<JobOutcome, QString> waitForJob(MainWindow& w) {
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        if (!finished.wait(15 * 60 * 1000)) return {JobOutcome::Failed, QStringLiteral("timed out")};
        return {finished[0][1].value<JobOutcome>(), finished[0][2].toString()};
    }

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_engine_run_actions");
        if (testing::demoProject().isEmpty()) QSKIP("needs the demo project projects/fashion-mnist.dpmix");
        project_ = testing::copyDemoProject(dir_.path());
        QVERIFY(!project_.isEmpty());
        runs_.setAuditFunction(runAuditWithEngine);
    }

    void advancedValuesRunAndAreRecorded() {
        MainWindow w({&runs_, &store_, [] { return QStringLiteral("test"); }});
        QCOMPARE(w.openFile(project_), QString());
        dpmix::widgets::RunParameters values = w.document()->values();
        values.seeds = QStringLiteral("21");
        w.document()->reset(values);
        w.document()->edit(dpmix::widgets::ParameterField::ClipNorm, 7.0);
        QTRY_VERIFY(runAction(w)->isEnabled());
        w.requestRun();
        const auto [outcome, message] = waitForJob(w);
        QVERIFY2(outcome == JobOutcome::Succeeded, qPrintable(message));
        int dpRuns = 0;
        for (const auto& r : w.project()->runs) {
            if (r.run.seed != 21 || r.run.method != "dp-mixmin") continue;
            ++dpRuns;
            const auto config = QJsonDocument::fromJson(QByteArray::fromStdString(r.run.configJson)).object();
            QCOMPARE(config.value("clip").toDouble(), 7.0);  // the panel's value, not the spec's 13
            QCOMPARE(r.ledgers.size(), std::size_t(1));
        }
        QVERIFY(dpRuns > 0);
    }

    void rerunOnANewSeedRepeatsTheStoredConfiguration() {
        MainWindow w({&runs_, &store_, [] { return QStringLiteral("test"); }});
        QCOMPARE(w.openFile(project_), QString());
        const RunResults* original = nullptr;
        for (const auto& r : w.project()->runs)
            if (r.run.method == "dp-mixmin" && r.run.status == dpmix::project::RunStatus::Done) {
                original = &r;
                break;
            }
        QVERIFY(original);
        const auto stored = original->run;
        QCOMPARE(w.runActions()->rerun(stored.id, 9), QString());
        const auto [outcome, message] = waitForJob(w);
        QVERIFY2(outcome == JobOutcome::Succeeded, qPrintable(message));
        int repeated = 0, otherTasks = 0;
        for (const auto& r : w.project()->runs) {
            if (r.run.seed != 9) continue;
            if (r.run.task != stored.task) ++otherTasks;
            if (r.run.method == "dp-mixmin") {
                ++repeated;
                QCOMPARE(r.run.epsilon, stored.epsilon);
                QCOMPARE(r.run.configJson, stored.configJson);  // the same settings
                QVERIFY(r.run.status == dpmix::project::RunStatus::Done);
                QCOMPARE(r.ledgers.size(), std::size_t(1));
            }
        }
        QCOMPARE(repeated, 1);
        QCOMPARE(otherTasks, 0);
    }

    void epsilonSweepStoresOneDpRunPerTaskAndEpsilon() {
        MainWindow w({&runs_, &store_, [] { return QStringLiteral("test"); }});
        QCOMPARE(w.openFile(project_), QString());
        dpmix::widgets::RunParameters values = w.document()->values();
        values.seeds = QStringLiteral("11");
        w.document()->reset(values);
        QTRY_VERIFY(w.runActions()->sweepAction()->isEnabled());
        const int tasks = static_cast<int>(w.project()->spec.sensitiveTasks.size());
        QVERIFY(tasks > 0);
        QCOMPARE(w.runActions()->startEpsilonSweep({.epsilons = {0.5, 4.0}, .fullPipeline = false}), QString());
        const auto [outcome, message] = waitForJob(w);
        QVERIFY2(outcome == JobOutcome::Succeeded, qPrintable(message));
        QCOMPARE(countRuns(*w.project(), "dp-mixmin", 11, 0.5), tasks);
        QCOMPARE(countRuns(*w.project(), "dp-mixmin", 11, 4.0), tasks);
        QCOMPARE(countRuns(*w.project(), "dp-mixmin", 11), 2 * tasks);
    }

    void auditIsStoredWithTheChosenCanary() {
        MainWindow w({&runs_, &store_, [] { return QStringLiteral("test"); }});
        QCOMPARE(w.openFile(project_), QString());
        QTRY_VERIFY(w.runActions()->auditAction()->isEnabled());
        const QString task = QString::fromStdString(w.project()->spec.sensitiveTasks.front().name);
        QCOMPARE(w.runActions()->startAudit({task, false, 20, false, 13}), QString());
        const auto [outcome, message] = waitForJob(w);
        QVERIFY2(outcome == JobOutcome::Succeeded, qPrintable(message));
        const RunResults* audit = nullptr;
        for (const auto& r : w.project()->runs)
            if (r.run.method == "audit" && r.run.seed == 13) audit = &r;
        QVERIFY(audit);
        QCOMPARE(audit->run.task, task.toStdString());
        QVERIFY(audit->run.status == dpmix::project::RunStatus::Done);
        QVERIFY2(audit->run.configJson.find("\"runs_per_world\":20") != std::string::npos,
                 audit->run.configJson.c_str());
        QVERIFY2(audit->run.configJson.find("\"canary\":\"max-clip\"") != std::string::npos,
                 audit->run.configJson.c_str());
        QCOMPARE(audit->run.epsilon, std::optional<double>(w.document()->values().epsilon));
    }
};

QTEST_MAIN(TstEngineRunActions)
#include "tst_engine_run_actions.moc"
