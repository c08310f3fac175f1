// Private Set Generation in the workbench, through the real engine on a tiny generated study with
// no public data (no downloaded data): the study opens on its Private set tab (the mixture tabs
// are not shown), Run ▸ Generate private set (PSG) is enabled although the panel's mixture values
// do not fit the data, the job shows S live while it runs, and when it finishes the tab shows the
// stored set, its accuracy table with both references, and the privacy it spent. With
// DPMIX_SCREENSHOT_DIR set, the window is saved there (docs/screenshots/private-set.png).
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "app/workbench/views/private_set_view.h"
#include "engine/project/project_opener.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "widgets/image_grid_widget.h"
#include "widgets/parameter_panel.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace dpmix;
using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

namespace {
const std::string kSpec = R"({
  "name": "tiny-psg",
  "public_sources": [],
  "sensitive": {"name": "sens", "loader": "idx", "path": "sens-images.idx",
                "options": {"labels": "sens-labels.idx", "classes": "a,b,c,d"}, "user_level": false},
  "psg": {"images_per_class": 1, "iterations": 2, "batch_loop": 2, "batch": 16, "network_width": 4,
          "network_depth": 2, "evaluations": 1, "evaluation_epochs": 2, "dp_sgd_steps": 2},
  "privacy": {"epsilon": 8, "delta": 1e-5, "rho": 0.25},
  "seeds": [0]
})";
}  // namespace

class TstEnginePsg : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_;

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_engine_psg");
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path().toStdString();
        testing::writeStudyImages(d, "sens", 200, 2);
        std::ofstream(d + "/psg.json") << kSpec;
        auto created =
            project::createProjectFromSpecFile(d + "/psg.json", d + "/psg.dpmix", testing::dataLayerSummarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        project_ = QString::fromStdString(d + "/psg.dpmix");
    }

    void generateShowLiveAndStore() {
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        runs.setPsgFunction(runPsgWithEngine);
        QList<SpendPreview> asked;
        bool accept = false;
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.confirmSpend = [&](const SpendPreview& p) {
            asked << p;
            return accept;
        };
        MainWindow w(services);
        w.resize(1440, 900);
        QCOMPARE(w.openFile(project_), QString());
        PrivateSetView* view = privateSetView(w);
        QVERIFY(view);
        QCOMPARE(analysisTabs(w)->currentWidget(), view);  // a PSG study opens on its set
        for (const char* mixtureTab : {"lambdaView", "aucView", "tradeoffView"})
            QVERIFY2(!w.findChild<QWidget*>(mixtureTab), mixtureTab);
        QVERIFY(!view->emptyState()->isHidden());
        QVERIFY(!parameterPanel(w)->mixtureShown());  // no ρ or mixture settings for a PSG study
        QAction* psg = w.runActions()->privateSetAction();
        QVERIFY(psg->isEnabled());

        QSignalSpy live(&runs, &EngineRunController::privateSetUpdated);
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        PsgSettings settings;
        settings.imagesPerClass = 1;
        settings.iterations = 2;
        settings.evaluations = 1;
        settings.evaluationEpochs = 2;
        settings.dpSgdSteps = 2;
        // Like every run that spends ε, it is previewed and confirmed first: PSG's release and
        // its DP-SGD reference's, both at the panel's ε = 8 on the same images, composed.
        QVERIFY(w.runActions()->startPrivateSet(settings).contains("not confirmed"));
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked[0].releases, 2LL);
        QCOMPARE(asked[0].before, 0.0);
        QVERIFY2(asked[0].after > 8.0 && asked[0].after < 16.0, qPrintable(QString::number(asked[0].after)));
        QCOMPARE(finished.count(), 0);
        QVERIFY(w.project()->runs.empty());
        accept = true;
        QCOMPARE(w.runActions()->startPrivateSet(settings), QString());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
        QVERIFY2(finished[0][1].value<JobOutcome>() == JobOutcome::Succeeded, qPrintable(finished[0][2].toString()));
        QCOMPARE(live.count(), 2);  // after each of the 2 iterations
        const auto last = live.back()[0].value<PrivateSetImages>();
        QCOMPARE(last.iteration, 2);
        QCOMPARE(last.classNames, QStringList({"a", "b", "c", "d"}));

        // The project was reread: the stored set, the table, the ledger line.
        view = privateSetView(w);
        QVERIFY(view);
        QTRY_COMPARE(view->runSelector()->count(), 1);
        QCOMPARE(view->grid()->rowCount(), 4);
        QCOMPARE(view->grid()->columnCount(), 1);
        QCOMPARE(view->accuracyTable()->rowCount(), 5);
        QVERIFY2(view->privacyLine()->text().contains("8 DP gradient steps") ||
                     view->privacyLine()->text().contains("4 DP gradient steps"),
                 qPrintable(view->privacyLine()->text()));
        QVERIFY(view->privacyLine()->text().contains("ε = 8") || view->privacyLine()->text().contains("ε = 7.9"));
        int psgRuns = 0;
        for (const auto& r : w.project()->runs) psgRuns += r.run.method.rfind("psg", 0) == 0 ? 1 : 0;
        QCOMPARE(psgRuns, 3);  // the set and its two references
        if (const QString shots = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(w.grab().save(shots + "/private-set-tiny.png"));
    }
};

QTEST_MAIN(TstEnginePsg)
#include "tst_engine_psg.moc"
