// The result views read a generated project (generated_project.h, numbers chosen by hand):
// λ bars are the means and sample standard deviations over seeds, the ledger table shows the
// stored entries, Verify passes on a clean file and reports a tampered ledger, every plot
// exports to PNG, PDF, SVG and a tidy CSV; every result view explains itself (What's This, axis and
// header tooltips) and a non-private baseline is never labelled with a finite ε.
#include "app/workbench/help/view_help.h"
#include "app/workbench/views/auc_epsilon_view.h"
#include "app/workbench/views/auc_view.h"
#include "app/workbench/views/audit_view.h"
#include "app/workbench/views/chart_views.h"
#include "app/workbench/views/kscaling_view.h"
#include "app/workbench/views/ledger_view.h"
#include "app/workbench/views/perplexity_view.h"
#include "app/workbench/views/private_set_view.h"
#include "app/workbench/views/result_data.h"
#include "app/workbench/views/run_comparison.h"
#include "app/workbench/views/run_comparison_view.h"
#include "app/workbench/views/study_summary.h"
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "tests/app/workbench/generated_project.h"
#include "tests/support/test_support.h"
#include "widgets/bar_chart_widget.h"
#include "widgets/line_chart_widget.h"
#include "widgets/plot_export.h"
#include "widgets/qcp.h"

#include <QComboBox>
#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace dpmix::workbench;
using dpmix::widgets::ExportFormat;

namespace {
const double kStd = std::sqrt(0.02);  // sample std of {0.7, 0.5} (and of {0.3, 0.5}, {0.8, 0.6}, ...)

bool near(double a, double b) { return std::abs(a - b) < 1e-12; }
}  // namespace

class TstResultViews : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    testing::GeneratedProject generated_;
    ProjectSnapshot snapshot_;

    ProjectSnapshot reload() { return loadProjectSnapshot(generated_.path).value(); }

private Q_SLOTS:
    void init() {
        generated_ = testing::generateProject(dir_.path() + "/study.dpmix");
        snapshot_ = reload();
    }

    void lambdaBarsAreGroupedBySourceWithTotals() {
        // Two public sources: components "source / task" in source order, ticked by their task,
        // each source's bars followed by its total λ mass; means and stds of the totals are over
        // the runs.
        ProjectSnapshot p;
        p.spec.publicSources.resize(2);
        p.spec.publicSources[0].written.name = "fashion";
        p.spec.publicSources[1].written.name = "digits";
        const std::vector<std::string> names{"fashion / top", "fashion / shoe", "digits / 0"};
        for (int seed = 0; seed < 2; ++seed) {
            RunResults r;
            r.run.id = seed + 1;
            r.run.method = "dp-mixmin";
            r.run.task = "t";
            r.run.epsilon = 1.0;
            r.run.seed = seed;
            r.run.status = dpmix::project::RunStatus::Done;
            r.lambdas.push_back({r.run.id, "private", names,
                                 seed == 0 ? std::vector<double>{0.5, 0.3, 0.2} : std::vector<double>{0.6, 0.3, 0.1}});
            p.runs.push_back(r);
        }
        const auto data = lambdaChartData(p, {"t", 1.0});
        QCOMPARE(data.categories, QStringList({"top", "shoe", "Σ fashion", "0", "Σ digits"}));
        QCOMPARE(data.series.size(), 1);
        const auto& dp = data.series[0];
        QCOMPARE(dp.details.value(1), QString("fashion / shoe"));  // the tooltip names the source
        QCOMPARE(dp.details.value(4), QString("total λ of source digits's components"));
        QVERIFY(near(dp.values[2], 0.85) && near(dp.values[4], 0.15));  // (0.8 + 0.9) / 2, (0.2 + 0.1) / 2
        QVERIFY(near(dp.errors[2], std::sqrt(0.005)) && near(dp.errors[4], std::sqrt(0.005)));
        QVERIFY(near(dp.values[0], 0.55) && near(dp.values[3], 0.15));
    }

    void lambdaBarsAreSeedMeansWithStdErrorBars() {
        const auto selections = lambdaSelections(snapshot_);
        QCOMPARE(selections.size(), std::size_t(2));
        QCOMPARE(selections[0].epsilon, 1.0);
        QCOMPARE(selections[1].epsilon, 2.0);
        const auto data = lambdaChartData(snapshot_, selections[0]);
        QCOMPARE(data.categories, QStringList({"ab", "cd"}));
        QCOMPARE(data.series.size(), 4);
        const auto& dp = data.series[0];
        QVERIFY2(dp.name.startsWith("λ_DP") && dp.name.contains("cos 0.8") && dp.name.contains("L1 0.2"),
                 qPrintable(dp.name));
        QVERIFY(near(dp.values[0], 0.6) && near(dp.values[1], 0.4));
        QVERIFY(near(dp.errors[0], kStd) && near(dp.errors[1], kStd));
        const auto& star = data.series[1];
        QVERIFY(star.name.startsWith("λ*"));
        QVERIFY(near(star.values[0], 0.7) && near(star.values[1], 0.3));
        QVERIFY(near(star.errors[0], kStd));
        QVERIFY(data.series[2].name.startsWith("uniform") && data.series[2].name.contains("cos 0.5"));
        QVERIFY(near(data.series[2].values[0], 0.5) && near(data.series[2].errors[0], 0.0));
        QVERIFY(data.series[3].name.startsWith("random search") && data.series[3].name.contains("cos 0.3"));
        QVERIFY(near(data.series[3].values[1], 0.7));
        // One seed at ε = 2: no error bars.
        const auto single = lambdaChartData(snapshot_, selections[1]);
        QVERIFY(near(single.series[0].values[0], 0.8));
        QVERIFY(single.series[0].errors.isEmpty());
    }

    void lambdaViewShowsTheStoredData() {
        LambdaView view(snapshot_);
        QCOMPARE(view.selector()->count(), 2);
        QCOMPARE(view.selector()->itemText(0), QString("ac — ε = 1"));
        QCOMPARE(view.chart()->data().categories, QStringList({"ab", "cd"}));
        QVERIFY(near(view.chart()->data().series[0].values[0], 0.6));
        view.selector()->setCurrentIndex(1);
        QVERIFY(near(view.chart()->data().series[0].values[0], 0.8));
    }

    void trajectoryShowsEachComponentPerStep() {
        TrajectoryView view(snapshot_);
        QCOMPARE(view.selector()->count(), 2);  // the two ε = 1 runs stored iterates
        const auto& series = view.chart()->series();
        QCOMPARE(series.size(), 2);
        QCOMPARE(series[0].name, QString("ab"));
        QCOMPARE(series[0].x, QVector<double>({0, 1, 2}));
        QCOMPARE(series[0].mean, QVector<double>({0.5, 0.6, 0.7}));
        QCOMPARE(series[1].mean, QVector<double>({0.5, 0.4, 0.3}));
        view.selector()->setCurrentIndex(1);
        QCOMPARE(view.chart()->series()[0].mean.last(), 0.5);  // seed 1
    }

    void tradeoffIsCosineAgainstEpsilon() {
        TradeoffView view(snapshot_);
        const auto& series = view.chart()->series();
        QCOMPARE(series.size(), 3);
        QCOMPARE(series[0].name, QString("DP-MixMin"));
        QCOMPARE(series[0].x, QVector<double>({1.0, 2.0}));
        QVERIFY(near(series[0].mean[0], 0.8) && near(series[0].mean[1], 0.95));
        QVERIFY(near(series[0].lower[0], 0.8 - kStd) && near(series[0].upper[0], 0.8 + kStd));
        QVERIFY(near(series[1].mean[0], 0.3) && series[1].x == QVector<double>({1.0, 2.0}));  // random search, flat
        QVERIFY(near(series[2].mean[1], 0.5));                                                // uniform, flat
        // The flat baselines are drawn as reference lines, not as bands over DP-MixMin's.
        QVERIFY(!series[0].reference && series[1].reference && series[2].reference);
        QVERIFY(view.note()->isHidden());  // two ε: no "run several ε" note
    }

    void ledgerTableShowsEntriesAndTotal() {
        LedgerView view(snapshot_);
        QVERIFY(view.selectRun(generated_.dpRunEpsilon1Seed0));
        const auto entry = dpmix::privacy::gaussianEntry("mixture", "A", dpmix::privacy::PrivacyUnit::Example, 0.25,
                                                         1.5, 100, 1e-5, 13.0);
        QCOMPARE(view.table()->rowCount(), 1);
        QCOMPARE(view.table()->item(0, 0)->text(), QString("mixture"));
        QCOMPARE(view.table()->item(0, 4)->text(), QString("0.25"));
        QCOMPARE(view.table()->item(0, 5)->text(), QString("1.5"));
        QCOMPARE(view.table()->item(0, 6)->text(), QString("100"));
        QCOMPARE(view.table()->item(0, 8)->text(), QString::number(entry.epsilon, 'g', 6));
        QCOMPARE(view.table()->item(0, 10)->text(),
                 QString::fromUtf8("add/remove of one example; Poisson sampling; each example's…"));
        // A long one is cut to its start; the tooltip and the text below the table hold it whole.
        QVERIFY(view.table()->item(0, 10)->toolTip().startsWith(QString::fromStdString(entry.assumptions) + "\n"));
        QVERIFY(view.totalLabel()->text().contains(QString::fromStdString(entry.assumptions).toHtmlEscaped()));
        QVERIFY(view.totalLabel()->text().contains("ε = " + QString::number(entry.epsilon, 'g', 6)));

        QVERIFY(view.selectRun(generated_.randomSearchRun));
        QCOMPARE(view.table()->item(0, 8)->text(), QString("∞ (not private)"));
        // A short assumption is shown whole.
        QCOMPARE(view.table()->item(0, 10)->text(), view.table()->item(0, 10)->toolTip().section('\n', 0, 0));
        QVERIFY(view.table()->item(0, 10)->text().contains("without DP"));
    }

    void aDirichletEntryShowsTheVerdictOfTheStoredAudits() {
        long long dirichletRun = 0, auditRun = 0;
        {
            auto file = dpmix::project::ProjectFile::open(generated_.path.toStdString()).value();
            const double r = dpmix::privacy::calibrateDirichletR(1.0, 1e-5, 3.0, 0.01, 100).value().r;
            dirichletRun = file.addRun({"uniform", "ac", 1.0, 0, "{}"}).value();
            dpmix::privacy::Ledger ledger;
            ledger.record(dpmix::privacy::dirichletEntry("finetune", "B", 3.0, r, 0.01, 100, 1e-5));
            (void)file.recordLedger(dirichletRun, ledger).value();
            // Before any training audit: claimed, not audited.
            LedgerView before(loadProjectSnapshot(generated_.path).value());
            QVERIFY(before.selectRun(dirichletRun));
            QVERIFY2(before.table()->item(0, 9)->text().contains("claimed, not audited"),
                     qPrintable(before.table()->item(0, 9)->text()));
            // A hand-made audit at the same claim: no error in 500 + 500 runs, ε_LB = 4.91 > 1.
            auditRun = file.addRun({"audit", "ac", 1.0, 0, "{}"}).value();
            (void)file
                .addAudit({auditRun,
                           "finetune-dirichlet-large-norm",
                           {0, 0, 500, 500},
                           1e-5,
                           0.95,
                           4.9,
                           R"({"mechanism":"dirichlet","claimed_epsilon":1})"})
                .value();
        }
        LedgerView view(reload());
        QVERIFY(view.selectRun(dirichletRun));
        const QString cell = view.table()->item(0, 9)->text();
        QVERIFY2(cell.startsWith("no (claimed); claim refuted by audit (ε_LB = 4.91 > ε = 1; audit run #" +
                                 QString::number(auditRun)),
                 qPrintable(cell));
        QVERIFY2(view.totalLabel()->text().contains("claim refuted by audit"), qPrintable(view.totalLabel()->text()));
        // The trust banner's summary says it too, once per claim.
        const QString summary = reload().trust.summary;
        QVERIFY2(summary.contains("Audit verdict: Dirichlet mechanism at ε = 1, δ = 1e-05: claim refuted by audit"),
                 qPrintable(summary));
        // A DP-SGD run of the generated project is not touched by a Dirichlet audit.
        QVERIFY(view.selectRun(generated_.dpRunEpsilon1Seed0));
        QVERIFY(!view.table()->item(0, 9)->text().contains("audit"));
    }

    void runLabelsSayWhenTheRunAsAWholeIsNotPrivate() {
        // A baseline whose λ was chosen without DP has no finite ε, even when fine-tuned at ε = 1.
        dpmix::project::RunRecord run;
        run.id = 4;
        run.method = "non-private-mixmin";
        run.task = "ac";
        run.epsilon = 1.0;
        QCOMPARE(runLabel(run), QString("#4 Non-private MixMin (λ*) · ac · ε = ∞, non-private baseline · seed 0"));
        QVERIFY(!runLabel(run).contains("ε = 1"));
        run.epsilon.reset();
        run.method = "random-search";
        QVERIFY2(runLabel(run).contains("ε = ∞, non-private baseline"), qPrintable(runLabel(run)));
        run.method = "dp-mixmin";
        run.epsilon = 2.0;
        QVERIFY2(runLabel(run).endsWith("· ac · ε = 2 · seed 0"), qPrintable(runLabel(run)));
    }

    void aNonPrivateBaselineIsNeverShownAtAFiniteEpsilon() {
        // λ* fine-tuned with DP-SGD at ε = 1 beside DP-MixMin at ε = 1: the AUC chart at ε = 1,
        // its CSV and the comparison table say ε = ∞ for the baseline, never ε = 1.
        ProjectSnapshot p;
        for (const auto& [id, method, auc] :
             {std::tuple{1LL, "dp-mixmin", 0.7}, std::tuple{2LL, "non-private-mixmin", 0.8}}) {
            RunResults r;
            r.run.id = id;
            r.run.method = method;
            r.run.task = "ac";
            r.run.epsilon = 1.0;
            r.run.status = dpmix::project::RunStatus::Done;
            r.metrics.push_back({id, "test-auc", "", auc});
            p.runs.push_back(r);
        }
        const AucChart chart = aucChartData(p, 1.0, AucMode::Absolute);
        QCOMPARE(chart.data.series.size(), 2);
        QVERIFY2(chart.data.series[1].name.startsWith("Non-private MixMin (λ*), ε = ∞ · macro"),
                 qPrintable(chart.data.series[1].name));
        QVERIFY(!chart.data.series[0].name.contains("ε = ∞"));
        dpmix::widgets::BarChartWidget bars;
        QCOMPARE(bars.setData(chart.data), QString());
        const auto table = bars.plottedTable();
        QCOMPARE(table.rows[1].mid(0, 3), (QStringList{"ac", "inf", "non-private-mixmin"}));
        const auto compared = compareRuns(p, {1, 2}).value();
        QCOMPARE(compared.runLabels[1],
                 QString("#2 Non-private MixMin (λ*) · ac · ε = ∞, non-private baseline · seed 0"));
        for (const auto& parameter : compared.parameters)
            if (parameter.key == "epsilon") QCOMPARE(parameter.values[1], QString("∞, non-private baseline"));
    }

    void theLegendsMacroAucIsTheResultsTables() {
        // Seed 0 has tasks a (0.6) and b (0.9), seed 1 only task a (0.8). `dpmix results` (per
        // seed the mean over its tasks, then over seeds): (0.75 + 0.8) / 2 = 0.775. The mean over
        // tasks of the per-task seed means would say (0.7 + 0.9) / 2 = 0.8: the chart's legend
        // must say 0.775, the table's figure.
        ProjectSnapshot p;
        long long id = 0;
        for (const auto& [task, seed, auc] :
             {std::tuple{"a", 0LL, 0.6}, std::tuple{"b", 0LL, 0.9}, std::tuple{"a", 1LL, 0.8}}) {
            RunResults r;
            r.run.id = ++id;
            r.run.method = "dp-mixmin";
            r.run.task = task;
            r.run.seed = seed;
            r.run.epsilon = 1.0;
            r.run.status = dpmix::project::RunStatus::Done;
            r.metrics.push_back({id, "test-auc", "", auc});
            p.runs.push_back(r);
        }
        const AucChart chart = aucChartData(p, 1.0, AucMode::Absolute);
        QCOMPARE(chart.data.series.size(), 1);
        QVERIFY2(chart.data.series[0].name.contains("macro 0.775"), qPrintable(chart.data.series[0].name));
    }

    void everyResultViewSaysWhatItShows() {
        // What's This (Shift+F1) on every result view: what it shows, how to read it, and the
        // glossary entries of its words; the views' texts together explain the glossary's terms.
        StudySummaryView summary(snapshot_);
        LambdaView lambda(snapshot_);
        TrajectoryView trajectory(snapshot_);
        TradeoffView tradeoff(snapshot_);
        AucView auc(snapshot_);
        AucEpsilonView aucEpsilon(snapshot_);
        PerplexityView perplexity(snapshot_);
        AuditView audit(snapshot_);
        KScalingView kscaling(snapshot_);
        LedgerView ledger(snapshot_);
        RunComparisonView comparison(
            snapshot_, compareRuns(snapshot_, {generated_.dpRunEpsilon1Seed0, generated_.randomSearchRun}).value());
        PrivateSetView privateSet(snapshot_);
        const QList<std::tuple<QWidget*, ResultView, QStringList>> views = {
            {&summary, ResultView::StudySummary, {"Study summary", "verdict", "λ*", "split A", "ρ"}},
            {&lambda, ResultView::Lambda, {"λ by task", "λ*", "λ_DP", "cosine"}},
            {&trajectory, ResultView::Trajectory, {"λ trajectory", "EG step"}},
            {&tradeoff, ResultView::Tradeoff, {"Privacy–utility", "cosine", "ε"}},
            {&auc, ResultView::Auc, {"Per-class AUC", "AUC", "random guess"}},
            {&aucEpsilon, ResultView::AucAgainstEpsilon, {"AUC against ε", "Random Init", "ε = ∞"}},
            {&perplexity, ResultView::Perplexity, {"Perplexity", "perplexity"}},
            {&audit, ResultView::Audit, {"Audit", "ε_LB", "canary"}},
            {&kscaling, ResultView::KScaling, {"k-scaling", "excess error", "√k"}},
            {&ledger, ResultView::Ledger, {"Privacy ledger", "δ", "RDP order", "established"}},
            {&comparison, ResultView::Comparison, {"Run comparison", "pinned baseline"}},
            {&privateSet, ResultView::PrivateSet, {"Private set", "PSG"}},
        };
        QString all;
        for (const auto& [widget, kind, words] : views) {
            const QString text = widget->whatsThis();
            QCOMPARE(text, viewWhatsThis(kind));
            for (const QString& word : words)
                QVERIFY2(text.contains(word.toHtmlEscaped()), qPrintable(word + " in " + text));
            for (GlossaryTerm term : viewTerms(kind))
                QVERIFY2(text.contains(glossaryText(term).toHtmlEscaped()), qPrintable(glossaryName(term)));
            all += text;
        }
        for (const char* term : {"λ*", "cosine", "split A", "ρ", "δ", "RDP order", "established"})
            QVERIFY2(all.contains(QString::fromUtf8(term)), term);
    }

    void jargonOnAxesAndHeadersExplainsItselfOnHover() {
        LambdaView view(snapshot_);
        view.resize(800, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.chart()->plot()->replot();
        QCOMPARE(view.chart()->yAxisToolTip(), glossaryToolTip(GlossaryTerm::Lambda));
        // Over the value axis (left of the data area): the glossary entry of λ.
        const QRect data = view.chart()->plot()->axisRect()->rect();
        const QString tip = view.chart()->tooltipTextAt(QPointF(data.left() - 2, data.center().y()));
        QCOMPARE(tip, glossaryToolTip(GlossaryTerm::Lambda));
        QVERIFY2(tip.contains("weights are ≥ 0 and sum to 1"), qPrintable(tip));
        QCOMPARE(view.chart()->tooltipTextAt(QPointF(1, 1)), QString());
        TradeoffView tradeoff(snapshot_);
        QVERIFY(tradeoff.chart()->xAxisToolTip().contains("privacy budget"));
        QVERIFY(tradeoff.chart()->yAxisToolTip().contains("L1 0 means identical"));
        LedgerView ledger(snapshot_);
        QVERIFY(
            ledger.table()->horizontalHeaderItem(9)->toolTip().contains("established when it follows from a proof"));
        QVERIFY(ledger.table()->horizontalHeaderItem(8)->toolTip().contains("RDP order"));
        QVERIFY(ledger.table()->horizontalHeaderItem(3)->toolTip().contains("split A learns λ"));
        QVERIFY(ledger.table()->horizontalHeaderItem(7)->toolTip().contains("1/n"));
    }

    void verifyPassesOnACleanProject() {
        LedgerView view(snapshot_);
        QVERIFY(view.selectRun(generated_.dpRunEpsilon1Seed0));
        QVERIFY2(view.verify(), qPrintable(view.verdictLabel()->text()));
        QVERIFY(view.verdictLabel()->text().contains("✔ Verified"));
        QVERIFY(view.verdictLabel()->text().contains("hash chain intact"));
        QVERIFY(view.selectRun(generated_.randomSearchRun));
        QVERIFY2(view.verify(), qPrintable(view.verdictLabel()->text()));
    }

    void verifyReportsATamperedLedger() {
        // Halve nothing, just claim more noise than was added: σ 1.5 → 3 in the stored JSON.
        dpmix::project::testing::rawExec(
            generated_.path.toStdString(),
            "UPDATE ledgers SET ledger_json = replace(ledger_json, '\"sigma\":1.5', '\"sigma\":3.0') WHERE run_id = " +
                std::to_string(generated_.dpRunEpsilon1Seed0));
        LedgerView view(reload());
        QVERIFY(view.selectRun(generated_.dpRunEpsilon1Seed0));
        QCOMPARE(view.table()->item(0, 5)->text(), QString("3"));  // the edit took
        QVERIFY(!view.verify());
        const QString verdict = view.verdictLabel()->text();
        QVERIFY2(verdict.contains("✘ Discrepancy"), qPrintable(verdict));
        QVERIFY2(verdict.contains("hash chain broken at table ledgers"), qPrintable(verdict));
    }

    void everyPlotExports() {
        LambdaView lambda(snapshot_);
        TrajectoryView trajectory(snapshot_);
        TradeoffView tradeoff(snapshot_);
        const QList<QPair<QString, dpmix::widgets::ChartWidget*>> charts = {
            {"lambda", lambda.chart()}, {"trajectory", trajectory.chart()}, {"tradeoff", tradeoff.chart()}};
        for (const auto& [name, chart] : charts) {
            for (const auto& [suffix, format] : QList<QPair<QString, ExportFormat>>{{"png", ExportFormat::Png},
                                                                                    {"pdf", ExportFormat::Pdf},
                                                                                    {"svg", ExportFormat::Svg},
                                                                                    {"csv", ExportFormat::Csv}}) {
                const QString path = dir_.path() + "/" + name + "." + suffix;
                QCOMPARE(chart->exportTo(path, format), QString());
                QVERIFY2(QFileInfo(path).size() > 0, qPrintable(path));
            }
        }
    }

    void lambdaCsvIsOneRowPerMethodAndComponent() {
        // Tidy: the header names what each column is, never legend text ("λ_DP (DP-MixMin) · cos
        // 0.8, L1 0.2 (2 runs)"); one row per (method, component) with the exact mean λ; each λ's
        // own ε (λ* and random search were chosen without DP: inf; uniform reads no data: 0).
        LambdaView view(snapshot_);
        const QString path = dir_.path() + "/lambda-tidy.csv";
        QCOMPARE(view.chart()->exportTo(path, ExportFormat::Csv), QString());
        const auto rows = dpmix::test_support::readCsvFile(path);
        QCOMPARE(rows[0], (QStringList{"task", "epsilon", "method", "component", "metric", "value", "std", "runs"}));
        for (const QString& header : rows[0])
            QVERIFY2(!header.contains("·") && !header.contains("ε =") && !header.contains("λ"), qPrintable(header));
        QCOMPARE(rows.size(), 1 + 4 * 2);
        const auto& series = view.chart()->data().series;
        const QStringList methods{"dp-mixmin", "non-private-mixmin", "uniform", "random-search"};
        const QStringList epsilons{"1", "inf", "0", "inf"};
        for (int m = 0; m < 4; ++m)
            for (int c = 0; c < 2; ++c) {
                const QStringList& row = rows[1 + 2 * m + c];
                QCOMPARE(row.mid(0, 5), (QStringList{"ac", epsilons[m], methods[m], c == 0 ? "ab" : "cd", "lambda"}));
                QCOMPARE(row[5], dpmix::widgets::formatExact(series[m].values[c]));  // full precision
            }
        QVERIFY(near(rows[1][5].toDouble(), 0.6) && near(rows[1][6].toDouble(), kStd));
        QCOMPARE(rows[1][7], QString("2"));
        QVERIFY(near(rows[3][5].toDouble(), 0.7));  // λ*
    }

    void trajectoryAndTradeoffCsvNameTheirAxes() {
        TrajectoryView trajectory(snapshot_);
        const auto steps = trajectory.chart()->plottedTable();
        QCOMPARE(steps.columns,
                 (QStringList{"task", "epsilon", "method", "run", "seed", "component", "step", "metric", "value"}));
        QCOMPARE(steps.rows.size(), 2 * 3);
        QCOMPARE(steps.rows[1].mid(0, 3), (QStringList{"ac", "1", "dp-mixmin"}));
        QCOMPARE(steps.rows[1].mid(5), (QStringList{"ab", "1", "lambda", "0.6"}));
        // The trade-off: ε is the x column; the ε-free baselines, drawn flat across it, are one
        // row each at their own ε.
        TradeoffView tradeoff(snapshot_);
        const auto table = tradeoff.chart()->plottedTable();
        QCOMPARE(table.columns, (QStringList{"task", "epsilon", "method", "metric", "value", "lower", "upper"}));
        QCOMPARE(table.rows.size(), 2 + 1 + 1);
        QCOMPARE(table.rows[0].mid(0, 4), (QStringList{"all", "1", "dp-mixmin", "cosine_to_lambda_star"}));
        QCOMPARE(table.rows[1][1], QString("2"));
        QCOMPARE(table.rows[2].mid(0, 3), (QStringList{"all", "inf", "random-search"}));
        QCOMPARE(table.rows[3].mid(0, 3), (QStringList{"all", "0", "uniform"}));
    }
};

QTEST_MAIN(TstResultViews)
#include "tst_result_views.moc"
