// The reusable charts: each export format writes a file of the right kind; CSV holds exactly
// the plotted numbers; invalid data is refused with a reason and leaves the plot unchanged.
#include "widgets/bar_chart_widget.h"
#include "widgets/line_chart_widget.h"
#include "widgets/plot_export.h"
#include "widgets/qcp.h"

#include <QImage>
#include <QTemporaryDir>
#include "tests/support/test_support.h"

#include <QtTest>

using namespace dpmix::widgets;

namespace {

BarChartData sampleBars() {
    BarChartData d;
    d.categories = {"eps 1", "eps 2", "eps 5"};
    d.series = {{"DP-MixMin", {0.712, 0.731, 0.1 + 0.2}, {0.006, 0.005, 0.004}}, {"Uniform", {0.69, 0.702, 0.716}, {}}};
    return d;
}

QList<LineSeries> sampleLines() {
    return {{"sigma 1", {0, 10, 20}, {0.8, 0.6, 0.5}, {0.7, 0.55, 0.45}, {0.9, 0.65, 0.55}},
            {"no band", {1, 2}, {3.25, -1e-9}, {}, {}}};
}

void checkImageFormats(ChartWidget& chart, const QString& dir) {
    const ExportSize size{400, 300, 2.0};
    const QString png = dir + "/plot.png", pdf = dir + "/plot.pdf", svg = dir + "/plot.svg";
    QCOMPARE(chart.exportTo(png, ExportFormat::Png, size), QString());
    QCOMPARE(chart.exportTo(pdf, ExportFormat::Pdf, size), QString());
    QCOMPARE(chart.exportTo(svg, ExportFormat::Svg, size), QString());
    const QImage image(png);
    QCOMPARE(image.size(), QSize(800, 600));  // 2x for hi-DPI screens
    QCOMPARE(dpmix::test_support::fileHead(pdf, 5), QByteArray("%PDF-"));
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    const QByteArray svgText = svgFile.readAll();
    QVERIFY(svgText.contains("<svg"));
    QVERIFY2(svgText.size() > 2000, "the SVG should contain the drawn plot, not just a header");
}

}  // namespace

class TstChartExport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void barChartExportsEveryFormat() {
        QTemporaryDir dir;
        BarChartWidget chart;
        chart.resize(500, 350);
        QCOMPARE(chart.setData(sampleBars()), QString());
        checkImageFormats(chart, dir.path());
    }

    void barChartCsvEqualsInput() {
        QTemporaryDir dir;
        BarChartWidget chart;
        const BarChartData data = sampleBars();
        QCOMPARE(chart.setData(data), QString());
        const QString csv = dir.path() + "/bars.csv";
        QCOMPARE(chart.exportTo(csv, ExportFormat::Csv), QString());
        const auto rows = dpmix::test_support::readCsvFile(csv);
        // Tidy: one row per bar; without fields from the caller the category and the series
        // name are cells, never column names.
        QCOMPARE(rows.size(), 1 + 3 + 3);
        QCOMPARE(rows[0], (QStringList{"category", "series", "value", "error"}));
        for (int s = 0; s < 2; ++s)
            for (int i = 0; i < 3; ++i) {
                const QStringList& row = rows[1 + 3 * s + i];
                QCOMPARE(row[0], data.categories[i]);
                QCOMPARE(row[1], data.series[s].name);
                QCOMPARE(row[2].toDouble(), data.series[s].values[i]);  // exact, not approximate
                QCOMPARE(row[3], s == 0 ? dpmix::widgets::formatExact(data.series[0].errors[i]) : QString());
            }
        QCOMPARE(rows[3][2], QString("0.30000000000000004"));
    }

    void barChartCsvUsesTheFieldsTheCallerGives() {
        // The caller says what categories and series are: those are the columns, the legend text
        // (with "·" and "ε =") is nowhere in the header.
        BarChartWidget chart;
        BarChartData data;
        data.categories = {"ab", "cd"};
        data.categoryFields = {{{"component", "ab"}}, {{"component", "cd"}}};
        data.errorColumn = "std";
        data.series = {{"DP-MixMin · ε = 1",
                        {0.6, 0.4},
                        {0.1, 0.1},
                        {},
                        {{"task", "ac"}, {"epsilon", "1"}, {"method", "dp-mixmin"}, {"metric", "lambda"}}},
                       {"λ* · cos 1",
                        {0.7, 0.3},
                        {},
                        {},
                        {{"task", "ac"}, {"epsilon", "inf"}, {"method", "non-private-mixmin"}, {"metric", "lambda"}}}};
        QCOMPARE(chart.setData(data), QString());
        const auto table = chart.plottedTable();
        QCOMPARE(table.columns, (QStringList{"task", "epsilon", "method", "component", "metric", "value", "std"}));
        QCOMPARE(table.rows.size(), 4);
        QCOMPARE(table.rows[0], (QStringList{"ac", "1", "dp-mixmin", "ab", "lambda", "0.6", "0.1"}));
        QCOMPARE(table.rows[3], (QStringList{"ac", "inf", "non-private-mixmin", "cd", "lambda", "0.3", ""}));
        data.categoryFields.removeLast();
        QVERIFY(chart.setData(data).contains("1 category fields for 2 categories"));
    }

    void barChartRejectsMismatchedData() {
        BarChartWidget chart;
        QCOMPARE(chart.setData(sampleBars()), QString());
        BarChartData bad = sampleBars();
        bad.series[1].values.removeLast();
        const QString error = chart.setData(bad);
        QVERIFY2(error.contains("Uniform") && error.contains("2 values for 3 categories"), qPrintable(error));
        QCOMPARE(chart.data().series[1].values.size(), 3);  // unchanged
        bad = sampleBars();
        bad.series[0].errors[1] = -0.1;
        QVERIFY(chart.setData(bad).contains("expected a half-width >= 0"));
    }

    void lineChartExportsEveryFormat() {
        QTemporaryDir dir;
        LineChartWidget chart;
        chart.resize(500, 350);
        QCOMPARE(chart.setSeries(sampleLines()), QString());
        checkImageFormats(chart, dir.path());
    }

    void lineChartCsvEqualsInput() {
        QTemporaryDir dir;
        LineChartWidget chart;
        const auto lines = sampleLines();
        QCOMPARE(chart.setSeries(lines), QString());
        const QString csv = dir.path() + "/lines.csv";
        QCOMPARE(chart.exportTo(csv, ExportFormat::Csv), QString());
        const auto rows = dpmix::test_support::readCsvFile(csv);
        QCOMPARE(rows.size(), 1 + 3 + 2);
        QCOMPARE(rows[0], (QStringList{"series", "x", "value", "lower", "upper"}));
        int r = 1;
        for (const LineSeries& s : lines)
            for (int i = 0; i < s.x.size(); ++i, ++r) {
                QCOMPARE(rows[r][0], s.name);
                QCOMPARE(rows[r][1].toDouble(), s.x[i]);
                QCOMPARE(rows[r][2].toDouble(), s.mean[i]);
                if (s.lower.isEmpty()) {
                    // No band: the two band cells are present but empty.
                    QCOMPARE(rows[r].size(), 5);
                    QCOMPARE(rows[r][3], QString());
                    QCOMPARE(rows[r][4], QString());
                } else {
                    QCOMPARE(rows[r][3].toDouble(), s.lower[i]);
                    QCOMPARE(rows[r][4].toDouble(), s.upper[i]);
                }
            }
    }

    void lineChartCsvNamesItsXColumnAndSeriesFields() {
        LineChartWidget chart;
        chart.setCsvXColumn("step");
        QList<LineSeries> lines = sampleLines();
        lines[0].fields = {{"component", "ab"}, {"metric", "lambda"}};
        lines[1].fields = {{"component", "cd"}, {"metric", "lambda"}};
        QCOMPARE(chart.setSeries(lines), QString());
        const auto table = chart.plottedTable();
        QCOMPARE(table.columns, (QStringList{"component", "step", "metric", "value", "lower", "upper"}));
        QCOMPARE(table.rows.size(), 3 + 2);
        QCOMPARE(table.rows[1], (QStringList{"ab", "10", "lambda", "0.6", "0.55", "0.65"}));
        QCOMPARE(table.rows[4], (QStringList{"cd", "2", "lambda", "-1e-09", "", ""}));
    }

    void lineChartRejectsBadBandAndOrder() {
        LineChartWidget chart;
        auto bad = sampleLines();
        bad[0].lower[1] = 0.7;  // above the mean 0.6
        QVERIFY(chart.setSeries(bad).contains("does not contain the mean"));
        bad = sampleLines();
        bad[0].x[2] = 10;
        QVERIFY(chart.setSeries(bad).contains("does not increase"));
        QVERIFY(chart.series().isEmpty());
    }

    // Which side of the trust boundary the numbers are on travels with every export (docs/PRIVACY.md, "Trust
    // boundary"): the CSV's first line, the SVG's description and a line under the images; the chart
    // reads it from its window (a dialog's chart from the dialog's parent window) and leaves its
    // layout as it was.
    void exportsCarryTheTrustBoundaryLabel() {
        QTemporaryDir dir;
        QWidget window;
        window.setProperty(kTrustLabelProperty,
                           QStringLiteral("Keep inside the data owner's trust boundary: analyst-only"));
        QWidget dialog(&window, Qt::Dialog);
        auto* chart = new BarChartWidget(&dialog);
        chart->resize(500, 350);
        QCOMPARE(chart->setData(sampleBars()), QString());
        const QString csv = dir.path() + "/bars.csv";
        QCOMPARE(chart->exportTo(csv, ExportFormat::Csv), QString());
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly | QIODevice::Text));
        QCOMPARE(QString::fromUtf8(csvFile.readLine()).trimmed(),
                 QStringLiteral("# trust boundary: Keep inside the data owner's trust boundary: analyst-only"));
        QCOMPARE(QString::fromUtf8(csvFile.readLine()).trimmed(), QStringLiteral("category,series,value,error"));

        const ExportSize size{400, 300, 1.0};
        const int rows = chart->findChild<QCustomPlot*>()->plotLayout()->rowCount();
        QCOMPARE(chart->exportTo(dir.path() + "/labelled.png", ExportFormat::Png, size), QString());
        QCOMPARE(chart->exportTo(dir.path() + "/labelled.svg", ExportFormat::Svg, size), QString());
        QCOMPARE(chart->findChild<QCustomPlot*>()->plotLayout()->rowCount(), rows);  // the line is gone again
        QFile svg(dir.path() + "/labelled.svg");
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray svgText = svg.readAll();
        QVERIFY2(svgText.contains("<desc>Keep inside the data owner"), svgText.left(400).constData());

        // Without a label: the plain CSV and another image.
        window.setProperty(kTrustLabelProperty, QVariant());
        QCOMPARE(chart->exportTo(csv, ExportFormat::Csv), QString());
        QCOMPARE(dpmix::test_support::readCsvFile(csv).value(0), (QStringList{"category", "series", "value", "error"}));
        QCOMPARE(chart->exportTo(dir.path() + "/plain.png", ExportFormat::Png, size), QString());
        QVERIFY(QImage(dir.path() + "/plain.png") != QImage(dir.path() + "/labelled.png"));
        QCOMPARE(csvWithTrustLabel(PlotTable{}, QStringLiteral("DP release: a\nb")).section(QLatin1Char('\n'), 0, 0),
                 QStringLiteral("# trust boundary: DP release: a b"));
    }

    void failedExportNamesTheFileAndWritesNothing() {
        QTemporaryDir dir;
        BarChartWidget chart;
        QCOMPARE(chart.setData(sampleBars()), QString());
        const QString path = dir.path() + "/missing-folder/bars.csv";
        const QString error = chart.exportTo(path, ExportFormat::Csv);
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY(!QFile::exists(path));
    }

    void hoverTooltipsNameTheDataPoint() {
        BarChartWidget bars;
        bars.resize(600, 400);
        bars.show();
        QVERIFY(QTest::qWaitForWindowExposed(&bars));
        QCOMPARE(bars.setData(sampleBars()), QString());
        bars.plot()->replot();
        // Just below the top of the second "Uniform" bar (value 0.702 at "eps 2").
        QCPBars* uniform = nullptr;
        for (int i = 0; i < bars.plot()->plottableCount(); ++i)
            if (auto* b = qobject_cast<QCPBars*>(bars.plot()->plottable(i)); b && b->name() == "Uniform") uniform = b;
        QVERIFY(uniform);
        const QPointF top = uniform->dataPixelPosition(1);
        const QString tip = bars.tooltipTextAt(top + QPointF(0, 5));
        QVERIFY2(tip.contains("Uniform") && tip.contains("eps 2") && tip.contains("0.702"), qPrintable(tip));
        QCOMPARE(bars.tooltipTextAt(QPointF(2, 2)), QString());  // outside the axes

        LineChartWidget lines;
        lines.resize(600, 400);
        lines.show();
        QVERIFY(QTest::qWaitForWindowExposed(&lines));
        QCOMPARE(lines.setSeries(sampleLines()), QString());
        lines.plot()->replot();
        // The mean graph of "sigma 1" is the third graph (lower band, upper band, mean).
        const QPointF point = lines.plot()->graph(2)->dataPixelPosition(1);
        const QString lineTip = lines.tooltipTextAt(point);
        QVERIFY2(lineTip.contains("sigma 1") && lineTip.contains("x = 10") && lineTip.contains("mean = 0.6"),
                 qPrintable(lineTip));
    }

    void formatFromSuffix() {
        ExportFormat f{};
        QVERIFY(exportFormatFromPath("a/b.SVG", f) && f == ExportFormat::Svg);
        QVERIFY(exportFormatFromPath("x.csv", f) && f == ExportFormat::Csv);
        QVERIFY(!exportFormatFromPath("x.jpeg", f));
    }

    void axesStayInTheirMetricsDomainAndTheLegendBesideThem() {
        // AUCs near 1 with error bars and a four-line legend: the axis used to reach 1.15.
        BarChartWidget bars;
        bars.resize(640, 400);
        bars.setValueDomain(0.0, 1.0);
        BarChartData d;
        d.categories = {"a", "b"};
        d.axisFloor = 0.5;
        for (const char* name : {"DP-MixMin", "Uniform", "λ*", "Random Init"})
            d.series.append({name, {0.97, 0.99}, {0.02, 0.03}, {}});
        QCOMPARE(bars.setData(d), QString());
        QCOMPARE(bars.plot()->yAxis->range().upper, 1.0);
        QVERIFY(bars.plot()->yAxis->range().lower >= 0.5 - 1e-12);
        bars.plot()->replot();
        // The legend has a row of its own below the axes: it does not overlap their rectangle.
        QVERIFY(!bars.plot()->legend->outerRect().intersects(bars.plot()->axisRect()->rect()));

        // ε on a logarithmic axis: positive only, one value centred with a factor of two around it.
        LineChartWidget lines;
        QCOMPARE(lines.setLogarithmicX(true), QString());
        QCOMPARE(lines.setSeries({{"DP-MixMin", {1.0}, {0.9}, {}, {}}}), QString());
        DPMIX_COMPARE_NEAR(lines.plot()->xAxis->range().lower, 0.5, 1e-12);
        DPMIX_COMPARE_NEAR(lines.plot()->xAxis->range().upper, 2.0, 1e-12);
        QVERIFY(lines.setSeries({{"bad", {0.0, 1.0}, {0.5, 0.6}, {}, {}}}).contains("logarithmic"));
        lines.setValueDomain(0.0, 1.0);  // a cosine
        QCOMPARE(lines.setSeries({{"DP-MixMin", {0.25, 1.0, 8.0}, {0.4, 0.9, 0.99}, {}, {}}}), QString());
        QVERIFY(lines.plot()->yAxis->range().upper <= 1.0);
        QVERIFY(lines.plot()->yAxis->range().lower >= 0.0);
    }

    void theChosenFormatsSuffixIsNeverLost() {
        QCOMPARE(withFormatSuffix("study-lambda", ExportFormat::Png), QString("study-lambda.png"));
        QCOMPARE(withFormatSuffix("/tmp/a.PNG", ExportFormat::Png), QString("/tmp/a.PNG"));
        QCOMPARE(withFormatSuffix("/tmp/plot.v2", ExportFormat::Pdf), QString("/tmp/plot.v2.pdf"));
        QCOMPARE(withFormatSuffix("/tmp/table.png", ExportFormat::Csv), QString("/tmp/table.png.csv"));
        QCOMPARE(withFormatSuffix("x.svg", ExportFormat::Svg), QString("x.svg"));
    }
};

QTEST_MAIN(TstChartExport)
#include "tst_chart_export.moc"
