// The chart features the analysis views need: the log-log chart (points with ± error bars and
// dashed reference lines; CSV of exactly the plotted numbers; rejects what a log axis cannot
// show), and the bar chart's reference lines, missing bars and per-bar tooltip details; the
// legend in a wrapped row below the axes, light bands and dashed reference values.
#include "widgets/bar_chart_widget.h"
#include "widgets/chart_palette.h"
#include "widgets/line_chart_widget.h"
#include "widgets/log_log_chart_widget.h"
#include "widgets/qcp.h"

#include <QImage>
#include <QTemporaryDir>
#include "tests/support/test_support.h"

#include <QtTest>

#include <cmath>

using namespace dpmix::widgets;

namespace {

QList<LogLogSeries> sampleLogLog() {
    LogLogSeries measured{"excess", {8, 32, 128}, {0.05, 0.1 + 0.2, 0.7}, {0.01, 0.4, 0.1}, false};
    LogLogSeries reference{"sqrt k", {8, 32, 128}, {0.15, 0.3, 0.6}, {}, true};
    return {measured, reference};
}

BarChartData barsWithReference() {
    BarChartData d;
    d.categories = {"ac", "bd"};
    d.series = {{"natural", {0.05, std::nan("")}, {}, {"FPR 0.49", ""}},
                {"max-clip", {0.12, 0.2}, {0.0, 0.1}, {"FPR 0.45", "mean of 2 audits"}}};
    d.references = {{"claimed eps 1", 1.0}};
    return d;
}

}  // namespace

class TstChartAdditions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void logLogAxesAreLogarithmic() {
        LogLogChartWidget chart;
        QCOMPARE(chart.setSeries(sampleLogLog()), QString());
        QCOMPARE(chart.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(chart.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        // Every point (and the upper whiskers) inside the visible range.
        QVERIFY(chart.plot()->xAxis->range().contains(8) && chart.plot()->xAxis->range().contains(128));
        QVERIFY(chart.plot()->yAxis->range().contains(0.04) && chart.plot()->yAxis->range().contains(0.8));
        QCOMPARE(chart.plot()->graphCount(), 2);
        QCOMPARE(chart.plot()->graph(1)->pen().style(), Qt::DashLine);  // the reference
    }

    void lineChartLogarithmicY() {
        LineChartWidget chart;
        LineSeries ppl{QStringLiteral("DP-MixMin"), {0, 25, 40}, {9000, 700, 600}, {8000, 650, 580}, {9500, 720, 610}};
        QCOMPARE(chart.setSeries({ppl}), QString());
        QCOMPARE(chart.setLogarithmicY(true), QString());
        QVERIFY(chart.logarithmicY());
        QCOMPARE(chart.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        // Every band value inside the range, which stays positive.
        QVERIFY(chart.plot()->yAxis->range().lower > 0.0);
        QVERIFY(chart.plot()->yAxis->range().contains(580) && chart.plot()->yAxis->range().contains(9500));
        // A value a log axis cannot show is refused, naming it; the plotted data stay.
        LineSeries zero{QStringLiteral("broken"), {0, 1}, {1.0, 0.0}, {}, {}};
        const QString error = chart.setSeries({zero});
        QVERIFY2(error.contains("broken") && error.contains("logarithmic"), qPrintable(error));
        QCOMPARE(chart.series().size(), 1);
        QCOMPARE(chart.series()[0].name, QStringLiteral("DP-MixMin"));
        // Back to linear accepts it; switching to log with it plotted is refused.
        QCOMPARE(chart.setLogarithmicY(false), QString());
        QCOMPARE(chart.plot()->yAxis->scaleType(), QCPAxis::stLinear);
        QCOMPARE(chart.setSeries({zero}), QString());
        QVERIFY(!chart.setLogarithmicY(true).isEmpty());
        QVERIFY(!chart.logarithmicY());
    }

    void logLogExportsEveryFormatAndTheNumbers() {
        QTemporaryDir dir;
        LogLogChartWidget chart;
        chart.resize(500, 350);
        const auto series = sampleLogLog();
        QCOMPARE(chart.setSeries(series), QString());
        for (const auto& [suffix, format] : QList<QPair<QString, ExportFormat>>{
                 {"png", ExportFormat::Png}, {"pdf", ExportFormat::Pdf}, {"svg", ExportFormat::Svg}}) {
            const QString path = dir.path() + "/plot." + suffix;
            QCOMPARE(chart.exportTo(path, format, {400, 300, 2.0}), QString());
            QVERIFY(QFileInfo(path).size() > 1000);
        }
        QCOMPARE(QImage(dir.path() + "/plot.png").size(), QSize(800, 600));
        const QString csv = dir.path() + "/plot.csv";
        QCOMPARE(chart.exportTo(csv, ExportFormat::Csv), QString());
        const auto rows = dpmix::test_support::readCsvFile(csv);
        QCOMPARE(rows.size(), 1 + 3 + 3);
        QCOMPARE(rows[0], (QStringList{"series", "x", "value", "std"}));
        QCOMPARE(rows[2], (QStringList{"excess", "32", "0.30000000000000004", "0.4"}));  // 0.1 + 0.2, exactly
        QCOMPARE(rows[6], (QStringList{"sqrt k", "128", "0.6", ""}));
        // With the x column and fields named by the caller.
        chart.setCsvXColumn("k");
        auto named = series;
        named[0].fields = {{"metric", "excess_error"}};
        named[1].fields = {{"metric", "sqrt_k_reference"}};
        QCOMPARE(chart.setSeries(named), QString());
        const auto table = chart.plottedTable();
        QCOMPARE(table.columns, (QStringList{"k", "metric", "value", "std"}));
        QCOMPARE(table.rows[5], (QStringList{"128", "sqrt_k_reference", "0.6", ""}));
    }

    void logLogRejectsWhatALogAxisCannotShow() {
        LogLogChartWidget chart;
        QCOMPARE(chart.setSeries(sampleLogLog()), QString());
        auto bad = sampleLogLog();
        bad[0].y[1] = 0.0;
        const QString error = chart.setSeries(bad);
        QVERIFY2(error.contains("\"excess\"") && error.contains("at x = 32") && error.contains("> 0"),
                 qPrintable(error));
        QCOMPARE(chart.series()[0].y[1], 0.1 + 0.2);  // unchanged
        bad = sampleLogLog();
        bad[1].x[0] = -1;
        QVERIFY(chart.setSeries(bad).contains("x[0] = -1"));
        bad = sampleLogLog();
        bad[0].errors.removeLast();
        QVERIFY(chart.setSeries(bad).contains("2 error bars for 3 points"));
        bad = sampleLogLog();
        bad[0].x[2] = 32;
        QVERIFY(chart.setSeries(bad).contains("does not increase"));
    }

    void logLogTooltipNamesThePoint() {
        LogLogChartWidget chart;
        chart.resize(600, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QCOMPARE(chart.setSeries(sampleLogLog()), QString());
        chart.plot()->replot();
        const QPointF point = chart.plot()->graph(0)->dataPixelPosition(2);
        const QString tip = chart.tooltipTextAt(point);
        QVERIFY2(tip.contains("excess") && tip.contains("x = 128") && tip.contains("y = 0.7") && tip.contains("± 0.1"),
                 qPrintable(tip));
        QCOMPARE(chart.tooltipTextAt(QPointF(2, 2)), QString());
    }

    void barReferenceLineIsDrawnAndExported() {
        QTemporaryDir dir;
        BarChartWidget chart;
        QCOMPARE(chart.setData(barsWithReference()), QString());
        // The reference is a dashed graph at y = 1 across the categories, with a legend entry.
        QCOMPARE(chart.plot()->graphCount(), 1);
        QCPGraph* line = chart.plot()->graph(0);
        QCOMPARE(line->name(), QString("claimed eps 1"));
        QCOMPARE(line->data()->size(), 2);
        QCOMPARE(line->data()->at(0)->value, 1.0);
        QCOMPARE(line->data()->at(1)->value, 1.0);
        QVERIFY(chart.plot()->yAxis->range().contains(1.0));
        const QString csv = dir.path() + "/bars.csv";
        QCOMPARE(chart.exportTo(csv, ExportFormat::Csv), QString());
        const auto rows = dpmix::test_support::readCsvFile(csv);
        // One row per drawn bar (bd has no natural bar: no row), then the reference line.
        QCOMPARE(rows[0], (QStringList{"category", "series", "value", "error"}));
        QCOMPARE(rows.size(), 1 + 3 + 1);
        QCOMPARE(rows[1], (QStringList{"ac", "natural", "0.05", ""}));
        QCOMPARE(rows[2], (QStringList{"ac", "max-clip", "0.12", "0"}));
        QCOMPARE(rows[3], (QStringList{"bd", "max-clip", "0.2", "0.1"}));
        QCOMPARE(rows[4], (QStringList{"", "claimed eps 1", "1", ""}));
    }

    void missingBarsAreNotDrawnAndTooltipsKeepTheirCategory() {
        BarChartWidget chart;
        chart.resize(600, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QCOMPARE(chart.setData(barsWithReference()), QString());
        chart.plot()->replot();
        QList<QCPBars*> bars;
        for (int i = 0; i < chart.plot()->plottableCount(); ++i)
            if (auto* b = qobject_cast<QCPBars*>(chart.plot()->plottable(i))) bars << b;
        QCOMPARE(bars.size(), 2);
        QCOMPARE(bars[0]->dataCount(), 1);  // "natural" has no bar on bd
        QCOMPARE(bars[1]->dataCount(), 2);
        // Hover the second max-clip bar (bd): its own value and detail, not the first category's.
        const QString tip = chart.tooltipTextAt(bars[1]->dataPixelPosition(1) + QPointF(0, 5));
        QVERIFY2(
            tip.contains("max-clip") && tip.contains("bd") && tip.contains("0.2") && tip.contains("mean of 2 audits"),
            qPrintable(tip));
        const QString natural = chart.tooltipTextAt(bars[0]->dataPixelPosition(0) + QPointF(0, 3));
        QVERIFY2(natural.contains("natural") && natural.contains("ac") && natural.contains("FPR 0.49"),
                 qPrintable(natural));
    }

    void valueLabelsSitOnTheirBars() {
        BarChartWidget chart;
        BarChartData d = barsWithReference();  // natural {0.05, missing}, max-clip {0.12, 0.2}
        d.valueLabels = true;
        QCOMPARE(chart.setData(d), QString());
        QCOMPARE(chart.plot()->itemCount(), 3);  // no label for the missing bar
        // Two series, bar width 0.8 / 2 = 0.4: centres at tick − 0.2 and tick + 0.2.
        const QList<std::tuple<QString, double, double>> expected = {
            {"0.05", 0.8, 0.05}, {"0.12", 1.2, 0.12}, {"0.2", 2.2, 0.2}};
        for (int i = 0; i < 3; ++i) {
            auto* label = qobject_cast<QCPItemText*>(chart.plot()->item(i));
            QVERIFY(label);
            QCOMPARE(label->text(), std::get<0>(expected[i]));
            DPMIX_COMPARE_NEAR(label->position->key(), std::get<1>(expected[i]), 1e-12);
            QCOMPARE(label->position->value(), std::get<2>(expected[i]));
        }
        d.valueLabels = false;
        QCOMPARE(chart.setData(d), QString());
        QCOMPARE(chart.plot()->itemCount(), 0);  // replaced, not accumulated
    }

    void manyCategoriesStandUpright() {
        // A λ chart of two dozen components: slanted labels would overlap, upright ones fit.
        BarChartWidget chart;
        BarChartData d;
        BarSeries s{"λ", {}, {}, {}};
        for (int i = 0; i < kUprightLabelsFrom + 1; ++i) {
            d.categories << QStringLiteral("digit %1").arg(i);
            s.values << 1.0 / (kUprightLabelsFrom + 1);
        }
        d.series << s;
        QCOMPARE(chart.setData(d), QString());
        QCOMPARE(chart.plot()->xAxis->tickLabelRotation(), 90.0);
        d.categories = QStringList(
            {"a rather long first category", "a rather long second category", "a rather long third category"});
        d.series[0].values = {0.2, 0.3, 0.5};
        QCOMPARE(chart.setData(d), QString());
        QCOMPARE(chart.plot()->xAxis->tickLabelRotation(), 35.0);  // few but long: slanted
        d.categories = QStringList({"a", "b", "c"});
        QCOMPARE(chart.setData(d), QString());
        QCOMPARE(chart.plot()->xAxis->tickLabelRotation(), 0.0);
    }

    void valueAxisStartsAtTheFloor() {
        BarChartWidget chart;
        BarChartData d = barsWithReference();
        d.series[1].values = {0.7, 0.9};
        d.series[0].values = {0.6, std::nan("")};
        d.references.clear();
        d.axisFloor = 0.5;
        QCOMPARE(chart.setData(d), QString());
        QCOMPARE(chart.plot()->yAxis->range().lower, 0.5);
        QVERIFY(chart.plot()->yAxis->range().upper > 0.9 + 0.1);  // the top error bar fits
        d.series[1].values = {0.4, 0.9};                          // below the base: the axis extends under it
        QCOMPARE(chart.setData(d), QString());
        QVERIFY(chart.plot()->yAxis->range().lower < 0.4);
    }

    void legendWrapsInARowBelowTheAxes() {
        // Fourteen λ components: the legend used to take a column of ~40% of the width, its
        // right border cut off by the plot's edge.
        LineChartWidget lines;
        QList<LineSeries> many;
        for (int j = 0; j < 14; ++j)
            many.append({QStringLiteral("component %1").arg(j), {0, 1, 2}, {0.1, 0.2, 0.3}, {}, {}});
        QCOMPARE(lines.setSeries(many), QString());
        BarChartWidget bars;
        BarChartData d;
        d.categories = {"a", "b", "c"};
        for (const char* name : {"λ_DP (DP-MixMin) · cos 0.993, L1 0.132 (2 runs)", "λ* (non-private) (3 runs)",
                                 "uniform · cos 0.407, L1 1.55 (3 runs)", "random search · cos 0.701 (3 runs)"})
            d.series.append({name, {0.2, 0.3, 0.5}, {}, {}});
        QCOMPARE(bars.setData(d), QString());
        for (ChartWidget* chart : {static_cast<ChartWidget*>(&lines), static_cast<ChartWidget*>(&bars)}) {
            for (const QSize size : {QSize(640, 420), QSize(380, 420)}) {
                chart->resize(size);
                chart->show();
                QVERIFY(QTest::qWaitForWindowExposed(chart));
                chart->plot()->replot();
                const QRect legend = chart->plot()->legend->outerRect();
                const QCPAxisRect* axes = chart->plot()->axisRect();
                QVERIFY2(legend.top() >= axes->outerRect().bottom(), "the legend lies below the axes");
                QVERIFY(!legend.intersects(axes->rect()));
                // The frame's right and bottom pixel included: nothing of it is cut off.
                QVERIFY2(chart->plot()->viewport().contains(legend.adjusted(0, 0, 1, 1)),
                         qPrintable(QStringLiteral("legend %1,%2 %3x%4 in %5x%6")
                                        .arg(legend.x())
                                        .arg(legend.y())
                                        .arg(legend.width())
                                        .arg(legend.height())
                                        .arg(size.width())
                                        .arg(size.height())));
                if (size.width() == 640) {
                    QVERIFY2(axes->outerRect().width() >= 0.85 * chart->width(), "the data keep the width");
                    QVERIFY(axes->rect().width() >= 0.8 * chart->width());
                }
            }
        }
        // Fourteen entries wrap into several columns (first row filled first), fewer on a narrower plot.
        lines.resize(900, 420);
        lines.plot()->replot();
        const int wide = lines.plot()->legend->columnCount();
        QVERIFY2(wide >= 3, qPrintable(QString::number(wide)));
        QVERIFY(lines.plot()->legend->rowCount() * wide >= 14);
        QCOMPARE(lines.plot()->legend->fillOrder(), QCPLayoutGrid::foColumnsFirst);
        lines.resize(380, 420);
        lines.plot()->replot();
        QVERIFY(lines.plot()->legend->columnCount() < wide);
        // An export at another size wraps for that size and leaves the widget as it was.
        QTemporaryDir dir;
        QCOMPARE(lines.exportTo(dir.filePath("wide.png"), ExportFormat::Png, {1600, 500, 1.0}), QString());
        lines.plot()->replot();
        QVERIFY(lines.plot()->viewport().contains(lines.plot()->legend->outerRect().adjusted(0, 0, 1, 1)));
    }

    void bandsAreLightAndReferenceValuesDashed() {
        LineSeries measured{"DP-MixMin", {0.25, 1, 4}, {0.9, 0.95, 0.99}, {0.85, 0.9, 0.98}, {0.95, 1.0, 1.0}};
        LineSeries baseline{"random search", {0.25, 4}, {0.8, 0.8}, {0.7, 0.7}, {0.9, 0.9}};
        LineChartWidget plain;
        QCOMPARE(plain.setSeries({measured, baseline}), QString());
        baseline.reference = true;
        LineChartWidget chart;
        QCOMPARE(chart.setSeries({measured, baseline}), QString());
        int fills = 0;
        for (int g = 0; g < chart.plot()->graphCount(); ++g) {
            const QCPGraph* graph = chart.plot()->graph(g);
            if (graph->brush().style() == Qt::NoBrush) continue;
            ++fills;
            // Light, in the series' own colour, without a border: overlaps stay readable.
            QVERIFY2(graph->brush().color().alpha() < 50, qPrintable(QString::number(graph->brush().color().alpha())));
            QCOMPARE(graph->brush().color().rgb(), seriesColor(0).rgb());
            QCOMPARE(graph->pen().style(), Qt::NoPen);
            QVERIFY(graph->channelFillGraph() != nullptr);
            QCOMPARE(graph->channelFillGraph()->pen().style(), Qt::NoPen);
        }
        QCOMPARE(fills, 1);  // the baseline's band is not filled over DP-MixMin's
        QCPGraph* baselineMean = nullptr;
        for (int g = 0; g < chart.plot()->graphCount(); ++g)
            if (chart.plot()->graph(g)->name() == "random search") baselineMean = chart.plot()->graph(g);
        QVERIFY(baselineMean);
        QCOMPARE(baselineMean->pen().style(), Qt::DashLine);
        QCOMPARE(baselineMean->scatterStyle().shape(), QCPScatterStyle::ssNone);
        // Drawn differently, exported the same.
        QCOMPARE(chart.plottedTable().toCsv(), plain.plottedTable().toCsv());
    }

    void barValidationChecksDetailsAndReferences() {
        BarChartWidget chart;
        auto bad = barsWithReference();
        bad.series[1].details.removeLast();
        QVERIFY(chart.setData(bad).contains("1 tooltip details for 2 categories"));
        bad = barsWithReference();
        bad.references[0].value = std::numeric_limits<double>::infinity();
        QVERIFY(chart.setData(bad).contains("expected a finite value"));
        bad = barsWithReference();
        bad.axisFloor = std::nan("");
        QVERIFY(chart.setData(bad).contains("axis floor"));
        QVERIFY(chart.data().categories.isEmpty());  // nothing was taken
    }
};

QTEST_MAIN(TstChartAdditions)
#include "tst_chart_additions.moc"
