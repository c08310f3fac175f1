// The analysis views (per-class AUC, perplexity curves, audit, k-scaling) over a generated
// project (analysis_views_project.h, numbers chosen by hand): each plots the stored numbers —
// means and sample standard deviations over seeds, gains over Random Init paired by seed, the
// claimed ε line, the √k reference — shows an empty state on a project without such runs, and
// exports PNG, PDF, SVG and a CSV holding exactly the plotted numbers. The window brings each
// view forward by name and renders it as a screenshot.
#include "app/workbench/main_window.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/screenshot.h"
#include "app/workbench/views/auc_epsilon_view.h"
#include "app/workbench/views/auc_view.h"
#include "app/workbench/views/audit_view.h"
#include "app/workbench/views/kscaling_view.h"
#include "app/workbench/views/perplexity_view.h"
#include "tests/app/workbench/analysis_views_project.h"
#include "tests/app/workbench/generated_project.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "tests/support/test_support.h"
#include "widgets/plot_export.h"

#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>

#include <QPushButton>
#include <QtTest>

#include <cmath>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using dpmix::widgets::ExportFormat;

namespace {

bool near(double a, double b) { return std::abs(a - b) < 1e-9; }

const double kRoot2 = std::sqrt(2.0);

/// RFC 4180 reader for the exported files (cells may be quoted: legend names hold commas).
/// Every format writes a file of its kind; returns the CSV rows.
QList<QStringList> exportAll(dpmix::widgets::ChartWidget* chart, const QString& stem) {
    for (const auto& [suffix, format] : QList<QPair<QString, ExportFormat>>{{"png", ExportFormat::Png},
                                                                            {"pdf", ExportFormat::Pdf},
                                                                            {"svg", ExportFormat::Svg},
                                                                            {"csv", ExportFormat::Csv}}) {
        const QString path = stem + "." + suffix;
        const QString error = chart->exportTo(path, format);
        if (!error.isEmpty()) qWarning("%s", qPrintable(error));
        if (!error.isEmpty() || QFileInfo(path).size() == 0) return {};
    }
    if (QImage(stem + ".png").isNull() || dpmix::test_support::fileHead(stem + ".pdf", 5) != "%PDF-" ||
        !dpmix::test_support::fileHead(stem + ".svg", 4000).contains("<svg"))
        return {};
    return dpmix::test_support::readCsvFile(stem + ".csv");
}

}  // namespace

class TstAnalysisViews : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    testing::AnalysisViewsProject generated_;
    ProjectSnapshot snapshot_;
    ProjectSnapshot emptySnapshot_;  // the λ-only project of generated_project.h

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_analysis_views");
        generated_ = testing::generateAnalysisViewsProject(dir_.path() + "/analysis.dpmix");
        snapshot_ = loadProjectSnapshot(generated_.path).value();
        const auto lambdaOnly = testing::generateProject(dir_.path() + "/lambda-only.dpmix");
        emptySnapshot_ = loadProjectSnapshot(lambdaOnly.path).value();
    }

    // --- Per-class AUC ------------------------------------------------------------------

    void aucBarsAreSeedMeansWithStd() {
        QCOMPARE(aucEpsilons(snapshot_), (std::vector<double>{1.0, 2.0}));
        const AucChart chart = aucChartData(snapshot_, 1.0, AucMode::Absolute);
        QVERIFY(chart.hasRandomInit);
        QCOMPARE(chart.data.categories, QStringList({"ac", "bd"}));
        QCOMPARE(chart.data.series.size(), 3);
        const auto& dp = chart.data.series[0];
        QVERIFY2(dp.name.startsWith("DP-MixMin · macro 0.765"), qPrintable(dp.name));  // (0.63 + 0.90) / 2
        QVERIFY(near(dp.values[0], 0.63) && near(dp.values[1], 0.90));
        QVERIFY(near(dp.errors[0], 0.06 / kRoot2) && near(dp.errors[1], 0.04 / kRoot2));  // |a − b| / √2
        const auto& uniform = chart.data.series[1];
        QVERIFY(uniform.name.startsWith("Uniform"));
        QVERIFY(near(uniform.values[0], 0.605) && near(uniform.values[1], 0.84));
        QVERIFY(near(uniform.errors[0], 0.11 / kRoot2) && near(uniform.errors[1], 0.0));
        const auto& ri = chart.data.series[2];
        QVERIFY(ri.name.startsWith("Random Init · macro 0.675"));  // (0.55 + 0.80) / 2
        QVERIFY(near(ri.values[0], 0.55) && near(ri.values[1], 0.80));
        QVERIFY2(chart.title.contains("ε = 1") && chart.title.contains("macro AUC: DP-MixMin 0.765"),
                 qPrintable(chart.title));
        QCOMPARE(dp.details[0], QString("seeds 0, 1"));
        QCOMPARE(chart.data.axisFloor, 0.5);  // the axis starts at chance level
    }

    void aucGainIsPairedBySeed() {
        const AucChart chart = aucChartData(snapshot_, 1.0, AucMode::GainOverRandomInit);
        QCOMPARE(chart.data.series.size(), 2);  // Random Init is the reference, not a bar
        const auto& dp = chart.data.series[0];
        // ac: (0.60 − 0.50)/0.50 = 20 %, (0.66 − 0.60)/0.60 = 10 %; bd: 10 %, 15 %.
        QVERIFY(near(dp.values[0], 15.0) && near(dp.values[1], 12.5));
        QVERIFY(near(dp.errors[0], 10.0 / kRoot2) && near(dp.errors[1], 5.0 / kRoot2));
        const auto& uniform = chart.data.series[1];
        // ac: 10 %, 10 %; bd: 5 %, 5 %; macro (10 + 5) / 2 = 7.5 %.
        QVERIFY(near(uniform.values[0], 10.0) && near(uniform.values[1], 5.0));
        QVERIFY2(uniform.name.contains("macro +7.5%"), qPrintable(uniform.name));
        QVERIFY(chart.title.contains("Relative gain"));
        QCOMPARE(chart.data.axisFloor, 0.0);
    }

    void aucAtAnotherEpsilonHasOnlyItsRuns() {
        const AucChart chart = aucChartData(snapshot_, 2.0, AucMode::Absolute);
        QVERIFY(!chart.hasRandomInit);
        QCOMPARE(chart.data.categories, QStringList({"ac"}));
        QCOMPARE(chart.data.series.size(), 1);
        QVERIFY(near(chart.data.series[0].values[0], 0.70));
        QVERIFY(chart.data.series[0].errors.isEmpty());  // one seed: no error bar
        QVERIFY(aucChartData(snapshot_, 2.0, AucMode::GainOverRandomInit).data.series.isEmpty());
    }

    void aucViewSwitchesEpsilonAndGain() {
        AucView view(snapshot_);
        QVERIFY(!view.epsilonSelector()->isHidden());  // two ε stored
        QCOMPARE(view.epsilonSelector()->count(), 2);
        QVERIFY(!view.showsEmptyState());
        QVERIFY(near(view.chart()->data().series[0].values[0], 0.63));
        view.gainToggle()->setChecked(true);
        QVERIFY(near(view.chart()->data().series[0].values[0], 15.0));
        view.epsilonSelector()->setCurrentIndex(1);  // ε = 2 has no Random Init
        QVERIFY(view.showsEmptyState());
        QVERIFY(view.emptyState()->text().contains("No Random Init"));
        view.gainToggle()->setChecked(false);
        QVERIFY(!view.gainToggle()->isEnabled());
        QVERIFY(!view.showsEmptyState());
        QVERIFY(near(view.chart()->data().series[0].values[0], 0.70));
    }

    // --- AUC against ε (the teacher's plot, docs/MANUAL.md "AUC vs ε") ------------------------

    // Per ε and method the macro over tasks within each seed, then mean ± std over seeds — the
    // numbers worked by hand from the generated project's table above.
    void aucAgainstEpsilonIsTheResultsTableAsCurves() {
        const AucEpsilonCurves all = aucEpsilonCurves(snapshot_, std::nullopt);
        QCOMPARE(all.epsilons, 2);
        QVERIFY(!all.nonPrivateReferences);
        QCOMPARE(all.series.size(), 3);
        const auto& dp = all.series[0];
        QVERIFY2(dp.name.startsWith("DP-MixMin"), qPrintable(dp.name));
        QCOMPARE(dp.x, QVector<double>({1.0, 2.0}));
        // ε = 1: seed 0 (0.60 + 0.88) / 2 = 0.74, seed 1 (0.66 + 0.92) / 2 = 0.79; ε = 2: one seed, task ac.
        QVERIFY(near(dp.mean[0], 0.765) && near(dp.mean[1], 0.70));
        QVERIFY(near(dp.upper[0] - dp.mean[0], 0.05 / kRoot2) && near(dp.lower[0], 0.765 - 0.05 / kRoot2));
        QVERIFY(near(dp.lower[1], 0.70) && near(dp.upper[1], 0.70));  // one seed: no spread
        QVERIFY(all.series[1].name.startsWith("Uniform"));
        QCOMPARE(all.series[1].x, QVector<double>({1.0}));
        QVERIFY(near(all.series[1].mean[0], (0.695 + 0.75) / 2));
        QVERIFY(all.series[2].name.startsWith("Random Init"));
        QVERIFY(near(all.series[2].mean[0], 0.675));
        QCOMPARE(all.series[2].fields, (dpmix::widgets::TidyFields{{"method", "random-init"}}));

        const AucEpsilonCurves ac = aucEpsilonCurves(snapshot_, std::string("ac"));
        QVERIFY(near(ac.series[0].mean[0], 0.63) && near(ac.series[0].mean[1], 0.70));
        QCOMPARE(aucEpsilonCurves(snapshot_, std::string("bd")).epsilons, 1);  // bd ran at ε = 1 only
    }

    void aucAgainstEpsilonViewNeedsTwoEpsilons() {
        AucEpsilonView view(snapshot_);
        QVERIFY(!view.showsEmptyState());
        QCOMPARE(view.taskSelector()->count(), 3);  // all tasks, ac, bd
        QVERIFY(view.chart()->logarithmicX());
        view.taskSelector()->setCurrentIndex(2);  // bd: one ε, no curve
        QVERIFY(view.showsEmptyState());
        QVERIFY2(view.emptyState()->text().contains("needs two ε or more"), qPrintable(view.emptyState()->text()));
        view.taskSelector()->setCurrentIndex(1);
        QVERIFY(!view.showsEmptyState());

        QVERIFY(view.hasAucResults());
        AucEpsilonView empty(emptySnapshot_);
        QVERIFY(!empty.hasAucResults());  // the window leaves the tab out
        QVERIFY(empty.showsEmptyState());
        QVERIFY2(empty.emptyState()->text().contains("ε sweep… with the full pipeline"),
                 qPrintable(empty.emptyState()->text()));
    }

    // --- Perplexity ---------------------------------------------------------------------

    void perplexityIsMeanWithMinMaxBand() {
        const auto selections = perplexitySelections(snapshot_);
        QCOMPARE(selections.size(), std::size_t(1));
        QCOMPARE(selections[0].label(), QString("ac — ε = 1"));
        const auto series = perplexitySeries(snapshot_, selections[0]);
        QCOMPARE(series.size(), 2);
        QCOMPARE(series[0].name, QString("DP-MixMin (2 runs)"));
        QCOMPARE(series[0].x, QVector<double>({0, 10, 20}));
        QCOMPARE(series[0].mean, QVector<double>({105, 55, 42}));
        QCOMPARE(series[0].lower, QVector<double>({100, 50, 40}));
        QCOMPARE(series[0].upper, QVector<double>({110, 60, 44}));
        QCOMPARE(series[1].name, QString("Uniform"));
        QCOMPARE(series[1].mean, QVector<double>({120, 80}));
        QVERIFY(series[1].lower.isEmpty());  // one run: no band
        PerplexityView view(snapshot_);
        QVERIFY(!view.showsEmptyState());
        QCOMPARE(view.chart()->series().size(), 2);
    }

    // --- Audit --------------------------------------------------------------------------

    void auditBarsPerTaskWithClaimedEpsilonLine() {
        QCOMPARE(auditEpsilons(snapshot_), (std::vector<double>{1.0, 2.0}));
        const auto data = auditChartData(snapshot_, 1.0);
        QCOMPARE(data.categories, QStringList({"ac", "bd"}));
        QCOMPARE(data.series.size(), 4);
        QCOMPARE(data.series[0].name, QString("natural canary"));
        QCOMPARE(data.series[1].name, QString("max-clip canary"));
        QCOMPARE(data.series[2].name, QString("natural canary, no noise (control)"));
        QCOMPARE(data.series[3].name, QString("max-clip canary, no noise (control)"));
        QCOMPARE(data.series[0].values[0], 0.0);
        QVERIFY(std::isnan(data.series[0].values[1]));  // no natural audit on bd: no bar
        QVERIFY(data.series[0].errors.isEmpty());
        QVERIFY(near(data.series[1].values[0], 0.12) && near(data.series[1].values[1], 0.2));  // (0.1 + 0.3) / 2
        QVERIFY(near(data.series[1].errors[1], 0.2 / kRoot2));
        QVERIFY(near(data.series[3].values[0], 5.6) && near(data.series[3].values[1], 4.0));
        QCOMPARE(data.references.size(), 1);
        QCOMPARE(data.references[0].name, QString("claimed ε = 1"));
        QCOMPARE(data.references[0].value, 1.0);
        QVERIFY(data.valueLabels);  // ε_LB = 0 bars must read "0", not look missing
        const QString natural = data.series[0].details[0];
        QVERIFY2(natural.contains("FPR 0.49 (490/1000)") && natural.contains("FNR 0.505 (505/1000)") &&
                     natural.contains("2000 per world"),
                 qPrintable(natural));
        QVERIFY(data.series[1].details[1].contains("mean of 2 audits"));
        // At ε = 2: its private audit plus the same controls.
        const auto two = auditChartData(snapshot_, 2.0);
        QCOMPARE(two.series.size(), 3);
        QCOMPARE(two.series[0].name, QString("max-clip canary"));
        QVERIFY(near(two.series[0].values[0], 0.4) && std::isnan(two.series[0].values[1]));
        QCOMPARE(two.references[0].value, 2.0);
    }

    void auditViewSelectsTheClaimedEpsilon() {
        AuditView view(snapshot_);
        QCOMPARE(view.epsilonSelector()->count(), 2);
        QVERIFY(!view.showsEmptyState());
        QCOMPARE(view.chart()->data().references[0].value, 1.0);
        view.epsilonSelector()->setCurrentIndex(1);
        QCOMPARE(view.chart()->data().references[0].value, 2.0);
        QVERIFY(view.chart()->data().series[0].details[0].contains("run #"));
    }

    // --- k-scaling ----------------------------------------------------------------------

    void kScalingIsLogLogWithSqrtReference() {
        const auto runs = kScalingRuns(snapshot_);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0]->run.id, generated_.kScalingRun);
        const KScalingChart chart = kScalingChartData(*runs[0]);
        QCOMPARE(chart.series.size(), 2);
        const auto& measured = chart.series[0];
        QCOMPARE(measured.x, QVector<double>({8, 32, 128, 512}));  // k = 2 (mean −0.0025) cannot be drawn
        for (int i = 0; i < measured.x.size(); ++i) {
            const double root = std::sqrt(measured.x[i]);
            QVERIFY(near(measured.y[i], 0.02 * root));
            QVERIFY(near(measured.errors[i], 0.02 * root / kRoot2));  // std of {0.01√k, 0.03√k}
        }
        QVERIFY2(measured.name.contains("slope 0.50 (k ≥ 32, 3 points)") && measured.name.contains("2 tasks"),
                 qPrintable(measured.name));
        const auto& reference = chart.series[1];
        QVERIFY(reference.reference);
        QVERIFY(reference.name.contains("through k = 32"));
        QCOMPARE(reference.x, measured.x);
        // Through (32, 0.02·√32): y = 0.02·√32·√(k/32) = 0.02·√k.
        for (int i = 0; i < reference.x.size(); ++i) QVERIFY(near(reference.y[i], 0.02 * std::sqrt(reference.x[i])));
        QVERIFY2(chart.note.contains("k = 2 (-0.0025)"), qPrintable(chart.note));

        KScalingView view(snapshot_);
        QVERIFY(!view.showsEmptyState());
        QCOMPARE(view.chart()->series().size(), 2);
        QVERIFY(view.note()->text().contains("k = 2"));
    }

    // --- Empty states -------------------------------------------------------------------

    void viewsWithoutDataSayWhatToRun() {
        AucView auc(emptySnapshot_);
        PerplexityView perplexity(emptySnapshot_);
        AuditView audit(emptySnapshot_);
        KScalingView kscaling(emptySnapshot_);
        QVERIFY(auc.showsEmptyState() && auc.emptyState()->text().contains("No downstream test AUC"));
        QVERIFY(perplexity.showsEmptyState() && perplexity.emptyState()->text().contains("No test perplexity"));
        QVERIFY(audit.showsEmptyState());
        QVERIFY2(audit.emptyState()->text().contains("No audit runs in this project yet — run Audit"),
                 qPrintable(audit.emptyState()->text()));
        QVERIFY(kscaling.showsEmptyState() && kscaling.emptyState()->text().contains("No k-scaling"));
    }

    // --- Export -------------------------------------------------------------------------

    // Export CSV is tidy: one observation per row, the columns named for what they are (no
    // legend text such as "DP-MixMin · macro 0.63" in the header), the numbers exact.
    void aucExportsThePlottedNumbers() {
        AucView view(snapshot_);
        const auto rows = exportAll(view.chart(), dir_.path() + "/auc");
        QCOMPARE(rows.size(), 1 + 3 * 2);  // header, then (DP-MixMin, Uniform, Random Init) × (ac, bd)
        QCOMPARE(rows[0], (QStringList{"task", "epsilon", "method", "metric", "value", "std"}));
        const auto& series = view.chart()->data().series;
        QCOMPARE(rows[1].mid(0, 4), (QStringList{"ac", "1", "dp-mixmin", "test_auc"}));
        QCOMPARE(rows[1][4].toDouble(), series[0].values[0]);  // exact round trip
        QVERIFY(near(rows[1][4].toDouble(), 0.63));
        QCOMPARE(rows[2][0], QString("bd"));
        QCOMPARE(rows[2][5].toDouble(), series[0].errors[1]);
        QCOMPARE(rows[6].mid(0, 4), (QStringList{"bd", "1", "random-init", "test_auc"}));
        QVERIFY(near(rows[6][4].toDouble(), 0.80));
        view.gainToggle()->setChecked(true);
        const auto gain = view.chart()->plottedTable();
        QCOMPARE(gain.rows.size(), 2 * 2);  // Random Init is the reference, not a bar
        QCOMPARE(gain.rows[0][3], QString("test_auc_gain_over_random_init_percent"));
    }

    void perplexityExportsThePlottedNumbers() {
        PerplexityView view(snapshot_);
        const auto rows = exportAll(view.chart(), dir_.path() + "/perplexity");
        QCOMPARE(rows.size(), 1 + 3 + 2);
        QCOMPARE(rows[0],
                 (QStringList{"task", "epsilon", "method", "step", "metric", "value", "lower", "upper", "runs"}));
        QCOMPARE(rows[2], (QStringList{"ac", "1", "dp-mixmin", "10", "test_perplexity", "55", "50", "60", "2"}));
        QCOMPARE(rows[5], (QStringList{"ac", "1", "uniform", "10", "test_perplexity", "80", "", "", "1"}));
    }

    void auditExportsThePlottedNumbers() {
        AuditView view(snapshot_);
        const auto rows = exportAll(view.chart(), dir_.path() + "/audit");
        QCOMPARE(rows[0], (QStringList{"task", "epsilon", "canary", "metric", "value", "std"}));
        // natural: ac (no natural audit on bd: no row); max-clip: ac, bd; the controls (no noise:
        // ε = inf) natural on ac, max-clip on ac and bd; then the claimed ε line.
        QCOMPARE(rows.size(), 1 + 1 + 2 + 1 + 2 + 1);
        QCOMPARE(rows[1], (QStringList{"ac", "1", "natural", "epsilon_lower_bound", "0", ""}));
        QCOMPARE(rows[2], (QStringList{"ac", "1", "max-clip", "epsilon_lower_bound", "0.12", "0"}));
        QCOMPARE(rows[3].mid(0, 3), (QStringList{"bd", "1", "max-clip"}));
        QCOMPARE(rows[3][4].toDouble(), view.chart()->data().series[1].values[1]);
        QVERIFY(near(rows[3][5].toDouble(), 0.2 / kRoot2));
        QCOMPARE(rows[4], (QStringList{"ac", "inf", "natural-no-noise", "epsilon_lower_bound", "0.5", ""}));
        QCOMPARE(rows[6], (QStringList{"bd", "inf", "max-clip-no-noise", "epsilon_lower_bound", "4", ""}));
        QCOMPARE(rows[7], (QStringList{"", "1", "", "claimed_epsilon", "1", ""}));
    }

    void kScalingExportsThePlottedNumbers() {
        KScalingView view(snapshot_);
        const auto rows = exportAll(view.chart(), dir_.path() + "/kscaling");
        QCOMPARE(rows.size(), 1 + 4 + 4);
        QCOMPARE(rows[0], (QStringList{"run", "k", "metric", "value", "std"}));
        const auto& series = view.chart()->series();
        const QString run = QString::number(generated_.kScalingRun);
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(rows[1 + i][0], run);
            QCOMPARE(rows[1 + i][1].toDouble(), series[0].x[i]);
            QCOMPARE(rows[1 + i][2], QString("excess_error"));
            QCOMPARE(rows[1 + i][3].toDouble(), series[0].y[i]);
            QCOMPARE(rows[1 + i][4].toDouble(), series[0].errors[i]);
            QVERIFY(near(rows[1 + i][3].toDouble(), 0.02 * std::sqrt(series[0].x[i])));
            QCOMPARE(rows[5 + i][2], QString("sqrt_k_reference"));
            QCOMPARE(rows[5 + i][4], QString());  // the reference line has no error bars
        }
    }

    // --- The window ---------------------------------------------------------------------

    void windowShowsAndRendersEachView() {
        EngineProjectStore store([](const dpmix::data::SourceSpec& spec) -> dpmix::Result<dpmix::project::SourceFacts> {
            return dpmix::Error{"no data in this test: " + spec.name};
        });
        EngineRunController runs([](dpmix::project::ProjectFile&, const StudyRequest&, const dpmix::ProgressCallback&,
                                    const dpmix::CancellationToken&, const StudyLog&) -> std::optional<dpmix::Error> {
            return dpmix::Error{"no studies in this test"};
        });
        MainWindow window({&runs, &store, [] { return QStringLiteral("test"); }});
        QCOMPARE(window.openFile(generated_.path, true), QString());
        for (const QString view : {"auc", "aucepsilon", "perplexity", "audit", "kscaling"}) {
            QVERIFY(MainWindow::viewNames().contains(view));
            QVERIFY(window.showView(view));
            QVERIFY2(window.findChild<QWidget*>(view + "View"), qPrintable(view));
            const QString png = dir_.path() + "/window-" + view + ".png";
            QCOMPARE(renderScreenshot(window, png, view), QString());
            QVERIFY(!QImage(png).isNull());
        }
        QVERIFY(window.findChild<AucView*>("aucView"));
        QVERIFY(!window.findChild<AuditView*>("auditView")->showsEmptyState());

        // A project without audits: the screenshot shows the empty state, not an empty plot.
        QCOMPARE(window.openFile(emptySnapshot_.path, true), QString());
        QCOMPARE(renderScreenshot(window, dir_.path() + "/empty-audit.png", "audit"), QString());
        auto* audit = qobject_cast<AuditView*>(analysisTabs(window)->currentWidget());
        QVERIFY(audit);
        QVERIFY(audit->showsEmptyState());
        // The empty state offers the action that fills it (not a command line), following its
        // enabled state: off while the project is open read-only.
        QVERIFY2(!audit->emptyState()->text().contains("dpmix "), qPrintable(audit->emptyState()->text()));
        QPushButton* fill = audit->emptyStateButton();
        QVERIFY(!fill->isHidden());
        QCOMPARE(fill->text(), window.runActions()->auditAction()->text().remove('&'));
        QVERIFY(!fill->isEnabled() && !window.runActions()->auditAction()->isEnabled());
        for (auto* page : window.findChildren<ResultPageView*>())
            if (page->showsEmptyState())
                QVERIFY2(!page->emptyState()->text().contains("dpmix "), qPrintable(page->emptyState()->text()));
    }
};

QTEST_MAIN(TstAnalysisViews)
#include "tst_analysis_views.moc"
