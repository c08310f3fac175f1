// The real engine behind Run (label data): on a copy of the Fashion-MNIST demo project the
// workbench runs proxies → mixture through pipeline::runStudy on the worker thread, rereads
// the new runs; a cancelled study stops and leaves no run running. Skipped without the demo project
// (scripts/make-screenshots.sh or `dpmix run projects/fashion-mnist.json` makes it).
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "tests/app/workbench/demo_project_copy.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"

#include <QAction>
#include <QDir>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

class TstEngineStudy : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString project_;

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_engine_study");
        if (testing::demoProject().isEmpty()) QSKIP("needs the demo project projects/fashion-mnist.dpmix");
        project_ = testing::copyDemoProject(dir_.path());
        QVERIFY(!project_.isEmpty());
    }

    void runsTheStudyAndCancels() {
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        MainWindow w({&runs, &store, [] { return QStringLiteral("test"); }});
        QCOMPARE(w.openFile(project_), QString());
        const std::size_t before = w.project()->runs.size();
        dpmix::widgets::RunParameters values = w.document()->values();
        values.seeds = QStringLiteral("5");
        values.epsilon = 3.0;
        w.document()->reset(values);
        QTRY_VERIFY(runAction(w)->isEnabled());

        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        w.requestRun();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 15 * 60 * 1000);
        QVERIFY2(finished[0][1].value<JobOutcome>() == JobOutcome::Succeeded, qPrintable(finished[0][2].toString()));
        QVERIFY(logView(w)->toPlainText().contains("Study finished."));
        // Every task got its four methods at seed 5; the DP runs at ε = 3 (the panel's value).
        int dpAtThree = 0;
        for (const auto& r : w.project()->runs)
            if (r.run.method == "dp-mixmin" && r.run.seed == 5 && r.run.epsilon && *r.run.epsilon == 3.0 &&
                r.run.status == dpmix::project::RunStatus::Done)
                ++dpAtThree;
        QCOMPARE(dpAtThree, 4);
        QVERIFY(w.project()->runs.size() >= before + 16);

        // Cancel a second study after it has started. The runner stores a run row only for the
        // stage in flight that owns one (proxy training; mixture runs are written when they end),
        // so: nothing is left running or queued, and any run row it did open is cancelled.
        const std::size_t beforeCancel = w.project()->runs.size();
        values.seeds = QStringLiteral("6");
        w.document()->reset(values);
        QTRY_VERIFY(runAction(w)->isEnabled());
        QSignalSpy progressed(jobRunner(w), &JobRunner::progressed);
        w.requestRun();
        // Cancel once the second study reports progress (it is surely running), not after a
        // fixed wait that a slow machine might not fill.
        QTRY_VERIFY_WITH_TIMEOUT(progressed.count() > 0, 5 * 60 * 1000);
        jobRunner(w)->cancelAll();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, 60 * 1000);
        QCOMPARE(finished[1][1].value<JobOutcome>(), JobOutcome::Cancelled);
        for (const auto& r : w.project()->runs)
            QVERIFY(r.run.status != dpmix::project::RunStatus::Running &&
                    r.run.status != dpmix::project::RunStatus::Queued);
        for (std::size_t i = beforeCancel; i < w.project()->runs.size(); ++i)
            QVERIFY(w.project()->runs[i].run.status == dpmix::project::RunStatus::Cancelled ||
                    w.project()->runs[i].run.status == dpmix::project::RunStatus::Done);
    }
};

QTEST_MAIN(TstEngineStudy)
#include "tst_engine_study.moc"
