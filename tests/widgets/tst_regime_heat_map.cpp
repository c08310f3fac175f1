// The regime map's heat map (widgets/regime_heat_map.h) on a 2×2 map: columns n and rows ε in
// increasing order, each cell's value, colour on the diverging scale (green ahead, purple behind,
// white at zero, grey without a result), its annotation ("*" beyond seed noise), the scale
// symmetric about zero, the CSV of the plotted numbers, refused input and the hover text.
#include "widgets/qcp.h"
#include "widgets/regime_heat_map.h"

#include <QtTest>

using namespace dpmix::widgets;

namespace {

// n = 500 and 4,000 across, ε = 1 and 4 up (given out of order on purpose).
QList<RegimeHeatCell> twoByTwo() {
    return {
        {4000, 4.0, 0, 0.0, 0.0, 0.0},          // no baseline result
        {500, 1.0, 3, 0.040, 0.030, 0.050},     // ahead beyond seed noise
        {4000, 1.0, 3, 0.005, -0.010, 0.020},   // within seed noise
        {500, 4.0, 3, -0.020, -0.030, -0.010},  // behind beyond seed noise
    };
}

}  // namespace

class TstRegimeHeatMap : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cellsSitByNAcrossAndEpsilonUp() {
        RegimeHeatMapWidget map;
        QCOMPARE(map.setCells(twoByTwo(), "Random Init"), QString());
        QCOMPARE(map.sizes(), (QList<long long>{500, 4000}));
        QCOMPARE(map.epsilons(), (QList<double>{1.0, 4.0}));
        QCOMPARE(map.cellAt(0, 0)->mean, 0.040);
        QCOMPARE(map.cellAt(0, 1)->mean, -0.020);
        QCOMPARE(map.cellAt(1, 0)->mean, 0.005);
        QVERIFY(!map.cellAt(1, 1));  // no seeds: nothing to colour
        QVERIFY(!map.cellAt(2, 0) && !map.cellAt(0, -1));
        QCOMPARE(map.colorLimit(), 0.040);  // the largest |difference|: the scale runs −0.04 to +0.04
    }

    void coloursDivergeAroundZero() {
        RegimeHeatMapWidget map;
        QCOMPARE(map.setCells(twoByTwo(), "Random Init"), QString());
        const QColor ahead = map.colorAt(0, 0), behind = map.colorAt(0, 1), even = map.colorAt(1, 0);
        QCOMPARE(ahead, QColor(0x27, 0x64, 0x19));  // +0.04 is the scale's top: PiYG's darkest green
        QVERIFY2(behind.red() > behind.green() && behind.blue() > behind.green(), qPrintable(behind.name()));
        QCOMPARE(behind, map.colorOf(-0.020));  // half way down: between white and pink
        // +0.005 of 0.04: pale, a touch of green.
        QVERIFY2(even.red() > 190 && even.green() > 190 && even.blue() > 190, qPrintable(even.name()));
        QVERIFY2(even.green() > even.red() && even.green() > even.blue(), qPrintable(even.name()));
        QCOMPARE(map.colorAt(1, 1), RegimeHeatMapWidget::missingColor());
        QCOMPARE(map.colorOf(0.0), QColor(0xf7, 0xf7, 0xf7));
    }

    void cellsAreAnnotatedWithTheDifferenceAndItsNoiseMark() {
        RegimeHeatMapWidget map;
        QCOMPARE(map.setCells(twoByTwo(), "Uniform"), QString());
        QCOMPARE(map.annotationAt(0, 0), QString("+0.040 *"));
        QCOMPARE(map.annotationAt(0, 1), QString("-0.020 *"));
        QCOMPARE(map.annotationAt(1, 0), QString("+0.005"));  // the interval holds zero: no mark
        QCOMPARE(map.annotationAt(1, 1), QString("—"));
        // One seed: no interval, so no mark however large the difference.
        QCOMPARE(map.setCells({{500, 1.0, 1, 0.2, 0.2, 0.2}}, "Uniform"), QString());
        QCOMPARE(map.annotationAt(0, 0), QString("+0.200"));
    }

    void theCsvHoldsThePlottedDifferences() {
        RegimeHeatMapWidget map;
        QCOMPARE(map.setCells(twoByTwo(), "Random Init"), QString());
        const QString csv = map.plottedTable().toCsv();
        QVERIFY2(csv.startsWith("epsilon,n,baseline,seeds,metric,value,lower,upper\n"), qPrintable(csv));
        QVERIFY2(csv.contains("1,500,Random Init,3,test_auc_dp_mixmin_minus_baseline,0.04,0.03,0.05\n"),
                 qPrintable(csv));
        QVERIFY2(csv.contains("4,500,Random Init,3,test_auc_dp_mixmin_minus_baseline,-0.02,-0.03,-0.01\n"),
                 qPrintable(csv));
        QCOMPARE(csv.count('\n'), 4);  // the header and three cells: the one without a result has no row
    }

    void badCellsAreRefusedAndTheMapKept() {
        RegimeHeatMapWidget map;
        QCOMPARE(map.setCells(twoByTwo(), "Random Init"), QString());
        auto twice = twoByTwo();
        twice << RegimeHeatCell{500, 1.0, 3, 0.0, 0.0, 0.0};
        QVERIFY(map.setCells(twice, "Random Init").contains("n = 500, ε = 1 is given twice"));
        QVERIFY(map.setCells({{0, 1.0, 3, 0.0, 0.0, 0.0}}, "Random Init").contains("expected n >= 1"));
        QVERIFY(map.setCells({{10, 1.0, 3, qQNaN(), 0.0, 0.0}}, "Random Init").contains("finite"));
        QCOMPARE(map.cells().size(), 4);
        QCOMPARE(map.setCells({}, "Random Init"), QString());  // an empty map is shown empty
        QVERIFY(map.sizes().isEmpty());
    }

    void hoverNamesTheCellAndItsInterval() {
        RegimeHeatMapWidget map;
        map.resize(600, 400);
        QCOMPARE(map.setCells(twoByTwo(), "Random Init"), QString());
        map.show();
        QVERIFY(QTest::qWaitForWindowExposed(&map));
        map.plot()->replot();
        const QPointF centre(map.plot()->xAxis->coordToPixel(0), map.plot()->yAxis->coordToPixel(0));
        const QString tip = map.tooltipTextAt(centre);
        QVERIFY2(tip.contains("n = 500, ε = 1"), qPrintable(tip));
        QVERIFY2(tip.contains("DP-MixMin − Random Init: +0.040 [+0.030, +0.050] AUC, 3 seeds"), qPrintable(tip));
        QVERIFY2(tip.contains("ahead beyond seed noise"), qPrintable(tip));
        const QPointF empty(map.plot()->xAxis->coordToPixel(1), map.plot()->yAxis->coordToPixel(1));
        QVERIFY2(map.tooltipTextAt(empty).contains("no Random Init result"), qPrintable(map.tooltipTextAt(empty)));
    }
};

QTEST_MAIN(TstRegimeHeatMap)
#include "tst_regime_heat_map.moc"
