// The privacy budget in the workbench, through the real engine on a tiny generated study (no
// downloaded data): after four "Run DP-MixMin" runs on the same split A the meter shows the
// composed total (the accountant's, equal to one sequential ledger of every stored DP entry,
// and below the sum of their ε's); each run was confirmed with its before → after; a run over
// the spec's cap is refused before it starts and writes no run row. With DPMIX_SCREENSHOT_DIR
// set, the meter and the refusal dialog are saved there as PNG (docs/screenshots).
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/parameters/working_settings.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_opener.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "tests/support/test_support.h"
#include "widgets/budget_meter.h"
#include "widgets/parameter_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <QtTest>

#include <cmath>
#include <fstream>

using namespace dpmix;
using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

namespace {

const std::string kSpec = R"({
  "name": "budget-study",
  "description": "4 classes; 3 public tasks; 2 sensitive tasks; a privacy budget cap of 6",
)" + dpmix::testing::tinyStudyData("clinic") +
                          R"(  "privacy": {"epsilon": 0.5, "delta": 1e-5, "rho": 0.3, "budget": 6},
  "stages": {"mixture": {"clip": 13, "batch": 40, "lr": 1.0, "steps": 20}},
  "seeds": [0]
})";

}  // namespace

class TstBudgetMeter : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_;

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_budget_meter");
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path().toStdString();
        dpmix::testing::writeStudyImages(d, "pub", 200, 1);
        dpmix::testing::writeStudyImages(d, "sens", 600, 2);
        std::ofstream(d + "/budget.json") << kSpec;
        auto created = project::createProjectFromSpecFile(d + "/budget.json", d + "/budget.dpmix",
                                                          dpmix::testing::dataLayerSummarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        project_ = QString::fromStdString(d + "/budget.dpmix");
    }

    void fourRunsComposeAndARunOverTheCapIsRefused() {
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        QList<SpendPreview> asked;
        bool accept = true;
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.confirmSpend = [&](const SpendPreview& p) {
            asked << p;
            return accept;
        };
        MainWindow w(services);
        w.resize(1400, 900);
        QCOMPARE(w.openFile(project_), QString());
        QVERIFY(budgetMeter(w)->text().contains("ε 0.00 of 6 spent"));

        widgets::RunParameters values = w.document()->values();
        values.seeds = QStringLiteral("0");
        values.epsilon = 0.5;
        w.document()->reset(values);
        double lastSpent = 0.0;
        for (int run = 0; run < 4; ++run) {
            QTRY_VERIFY(runAction(w)->isEnabled());
            QSignalSpy finished(jobRunner(w), &JobRunner::finished);
            w.requestRun();
            QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 5 * 60 * 1000);
            QVERIFY2(finished[0][1].value<JobOutcome>() == JobOutcome::Succeeded,
                     qPrintable(finished[0][2].toString()));
            QCOMPARE(asked.size(), run + 1);
            QVERIFY(!asked.back().overCap);
            QCOMPARE(asked.back().before, lastSpent);  // the meter's figure before the run
            QCOMPARE(asked.back().releases, 2LL);      // one DP-MixMin λ per task
            lastSpent = budgetReadingOf(*w.project()).value().spent;
            QVERIFY(lastSpent > asked.back().before);
        }

        // The composed total of the 8 stored DP releases (4 runs × 2 tasks, all on split A of seed 0).
        privacy::Ledger sameSplit(privacy::Composition::Sequential);
        double sum = 0.0;
        for (const auto& r : w.project()->runs) {
            if (r.run.method != "dp-mixmin") continue;
            QCOMPARE(r.ledgers.size(), std::size_t(1));
            const privacy::Ledger ledger = privacy::ledgerFromJson(r.ledgers.back().ledgerJson).value();
            for (const auto& e : ledger.entries()) {
                sameSplit.record(e);
                sum += e.epsilon;
            }
        }
        QCOMPARE(sameSplit.entries().size(), std::size_t(8));
        const double composed = sameSplit.total().epsilon;
        DPMIX_COMPARE_NEAR(lastSpent, composed, 1e-9);
        QVERIFY(composed < sum);  // composed by the accountant, not added
        QVERIFY(composed < 6.0);
        QVERIFY2(budgetMeter(w)->text().contains(QString("ε %1 of 6 spent").arg(composed, 0, 'f', 2)),
                 qPrintable(budgetMeter(w)->text()));
        QVERIFY(budgetMeter(w)->percentSpent() > 0 && !budgetMeter(w)->overCap());
        saveScreenshot(w.findChild<QDockWidget*>("parametersDock"), "budget-meter.png");

        // ε = 7 (each release alone is over the cap of 6): refused before anything starts or is stored.
        const std::size_t rowsBefore = w.project()->runs.size();
        values.epsilon = 7.0;
        w.document()->reset(values);
        QTRY_VERIFY(runAction(w)->isEnabled());
        QSignalSpy started(jobRunner(w), &JobRunner::started);
        w.requestRun();
        QCOMPARE(asked.size(), 5);
        QVERIFY(asked.back().overCap);
        QVERIFY(asked.back().after > 6.0);
        QCOMPARE(asked.back().before, lastSpent);
        QTest::qWait(200);
        QCOMPARE(started.count(), 0);
        QVERIFY(logView(w)->toPlainText().contains("over its cap 6"));
        QCOMPARE(loadProjectSnapshot(project_).value().runs.size(), rowsBefore);
        // "Compare with baselines" asks too (it also fine-tunes: the preview says it is a lower
        // bound); declined, nothing starts.
        values.epsilon = 0.5;
        w.document()->reset(values);
        QTRY_VERIFY(runAction(w)->isEnabled());
        accept = false;
        QVERIFY(!w.runActions()->startCompareWithBaselines().isEmpty());
        QCOMPARE(asked.size(), 6);
        QVERIFY(asked.back().fineTuningNotShown && !asked.back().overCap);
        QCOMPARE(started.count(), 0);
        QMessageBox refusal(QMessageBox::Warning, tr("Privacy budget exceeded"), spendPreviewText(asked[4]),
                            QMessageBox::Ok, &w);
        refusal.show();
        saveScreenshot(&refusal, "budget-refusal.png");
    }

    void anEpsilonSweepIsPreviewedAtEveryEpsilon() {
        // A sweep spends at every ε: it used to start without a word (a teacher's copy of the
        // demo gained about 43 ε). Now it is previewed like a run, and refused over the cap.
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        QList<SpendPreview> asked;
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.confirmSpend = [&](const SpendPreview& p) {
            asked << p;
            return false;  // declined
        };
        MainWindow w(services);
        QCOMPARE(w.openFile(project_), QString());
        widgets::RunParameters values = w.document()->values();
        values.seeds = QStringLiteral("0");
        w.document()->reset(values);
        QTRY_VERIFY(runAction(w)->isEnabled());
        const double before = budgetReadingOf(*w.project()).value().spent;
        QSignalSpy started(jobRunner(w), &JobRunner::started);
        QCOMPARE(w.runActions()->startEpsilonSweep({.epsilons = {0.25, 0.5}, .fullPipeline = false}),
                 QString("Not started: the privacy budget was not confirmed."));
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked[0].releases, 4LL);  // 2 ε × 1 seed × 2 tasks
        QCOMPARE(asked[0].before, before);
        QVERIFY(asked[0].after > before);
        QVERIFY(!asked[0].fineTuningNotShown && !asked[0].overCap);
        // The same sweep at more ε spends more.
        QCOMPARE(w.runActions()->startEpsilonSweep({.epsilons = {0.25, 0.5, 1.0}, .fullPipeline = true}),
                 QString("Not started: the privacy budget was not confirmed."));
        QCOMPARE(asked[1].releases, 6LL);
        QVERIFY(asked[1].after > asked[0].after);
        QVERIFY(asked[1].fineTuningNotShown);  // the full pipeline also fine-tunes
        // Over the cap of 6: refused, whatever the answer.
        QVERIFY(!w.runActions()->startEpsilonSweep({.epsilons = {5.0, 7.0}, .fullPipeline = false}).isEmpty());
        QVERIFY(asked.back().overCap);
        QTest::qWait(100);
        QCOMPARE(started.count(), 0);
        QCOMPARE(budgetReadingOf(*w.project()).value().spent, before);
    }

    void theCapFieldTheDataSetTotalAndTheReleaseCount() {
        // After the runs above: the cap is a field of the privacy settings (undoable, saved with
        // the working settings), the meter reads spent / cap of the data set, the preview says
        // how many releases one click makes and why, with the panel's accountant — and a second
        // project on the same data (a duplicate study) sees what the first spent before it runs.
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        QList<SpendPreview> asked;
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.confirmSpend = [&](const SpendPreview& p) {
            asked << p;
            return true;
        };
        MainWindow w(services);
        QCOMPARE(w.openFile(project_), QString());
        const double spent = budgetReadingOf(*w.project()).value().spent;
        QVERIFY(spent > 0.0);
        QVERIFY2(budgetMeter(w)->text().contains("of 6 spent (data set total)"), qPrintable(budgetMeter(w)->text()));

        auto* panel = w.findChild<widgets::ParameterPanel*>();
        QVERIFY(panel && panel->budgetCapEditor());
        QTest::keyClicks(panel->budgetCapEditor(), "2.5");
        QCOMPARE(w.document()->values().budgetCap, QStringLiteral("2.5"));
        QTRY_VERIFY2(budgetMeter(w)->text().contains("of 2.5 spent"), qPrintable(budgetMeter(w)->text()));
        QVERIFY(budgetMeter(w)->overCap() == (spent > 2.5));
        QVERIFY(workingSettingsJson(w.document()->values()).value("budget-cap").toString() == "2.5");
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->values().budgetCap, QString());
        QTRY_VERIFY2(budgetMeter(w)->text().contains("of 6 spent"), qPrintable(budgetMeter(w)->text()));
        // A cap that is not a number is the panel's error, and no run starts.
        QTest::keyClicks(panel->budgetCapEditor(), "lots");
        QVERIFY(planPrivacy(w.document()->values()).hasError(widgets::ParameterField::BudgetCap));
        w.document()->undoStack()->undo();

        widgets::RunParameters values = w.document()->values();
        values.seeds = QStringLiteral("0, 1");
        values.epsilon = 0.5;
        values.budgetCap = QString::number(spent + 0.01, 'f', 4);  // less than one more release
        w.document()->reset(values);
        QTRY_VERIFY(runAction(w)->isEnabled());
        QSignalSpy started(jobRunner(w), &JobRunner::started);
        w.requestRun();
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked[0].releases, 4LL);  // 2 tasks x 2 seeds
        QVERIFY2(asked[0].why.contains("task (2) and seed (2)"), qPrintable(asked[0].why));
        QCOMPARE(asked[0].accountant, QStringLiteral("PRV"));
        QVERIFY(asked[0].overCap);
        QVERIFY(spendPreviewText(asked[0]).contains("calibrated and certified by the PRV accountant"));
        QTest::qWait(100);
        QCOMPARE(started.count(), 0);

        // A duplicate study on the same sensitive data: its own file, no runs, the same total.
        const std::string d = dir_.path().toStdString();
        auto duplicate = project::createProjectFromSpecFile(d + "/budget.json", d + "/duplicate.dpmix",
                                                            dpmix::testing::dataLayerSummarizer());
        QVERIFY2(duplicate.ok(), duplicate.ok() ? "" : duplicate.error().message.c_str());
        MainWindow other(services);
        QCOMPARE(other.openFile(QString::fromStdString(d + "/duplicate.dpmix")), QString());
        QVERIFY(other.project()->runs.empty());
        const auto reading = budgetReadingOf(*other.project()).value();
        DPMIX_COMPARE_NEAR(reading.spent, spent, 1e-9);
        QVERIFY(reading.otherReleases >= 8);
        QVERIFY2(budgetMeter(other)->text().contains(QString("ε %1 of 6 spent").arg(spent, 0, 'f', 2)),
                 qPrintable(budgetMeter(other)->text()));
    }

    // The confirm dialog's time line, in the units a person reads (docs/MANUAL.md, "Running").
    void theEstimatedDurationReadsAsAPersonWouldSayIt() {
        QVERIFY(estimatedDurationText(42.4, 85.2, 256).startsWith("Estimated time on this machine: about 42 s ("));
        QVERIFY(estimatedDurationText(14 * 60 + 20, 85, 256).contains("about 14 min ("));
        QVERIFY(estimatedDurationText(3600 + 12 * 60 + 10, 85, 256).contains("about 1 h 12 min ("));
        QVERIFY(estimatedDurationText(100, 85.4, 64).contains("a training step of 64 images measured at 85 ms"));
        SpendPreview withTime;
        withTime.duration = estimatedDurationText(100, 85, 64);
        QVERIFY(spendPreviewText(withTime).contains("about 2 min"));
        QVERIFY(!spendPreviewText(SpendPreview()).contains("Estimated time"));  // none: not a word
    }

    void theUnitIsNamedFromTheSpec() {
        project::ProjectSpec spec;
        QCOMPARE(unitLabelOf(spec), QStringLiteral("examples"));
        spec.sensitive.userLevel = true;
        QCOMPARE(unitLabelOf(spec), QStringLiteral("users"));
        spec.sensitive.written.options["user_column"] = "Patient";
        QCOMPARE(unitLabelOf(spec), QStringLiteral("patients"));
        widgets::ParameterPanel panel;
        panel.setUnitName(unitLabelOf(spec));
        bool relabelled = false;
        for (auto* label : panel.findChildren<QLabel*>())
            relabelled = relabelled || label->text() == "Sensitive patients n";
        QVERIFY(relabelled);
    }

private:
    static void saveScreenshot(QWidget* widget, const QString& name) {
        const QString dir = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR");
        if (dir.isEmpty() || !widget) return;
        QCoreApplication::processEvents();
        QVERIFY(widget->grab().save(dir + "/" + name));
    }
};

QTEST_MAIN(TstBudgetMeter)
#include "tst_budget_meter.moc"
