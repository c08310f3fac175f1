// CSV writing and exact number formatting for "Export CSV". Expected strings are written by
// hand from RFC 4180's quoting rules.
#include "widgets/plot_table.h"

#include <QtTest>

using dpmix::widgets::formatExact;
using dpmix::widgets::PlotTable;

class TstPlotTable : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void plainCellsAreNotQuoted() {
        PlotTable t{{"a", "b"}, {{"1", "2"}, {"x", "y"}}};
        QCOMPARE(t.toCsv(), QString("a,b\n1,2\nx,y\n"));
    }
    void cellsWithCommaQuoteOrNewlineAreQuoted() {
        PlotTable t{{"name", "v"}, {{"DP-MixMin, ε=1", "1"}, {"say \"hi\"", "2"}, {"two\nlines", "3"}}};
        QCOMPARE(t.toCsv(), QString("name,v\n\"DP-MixMin, ε=1\",1\n\"say \"\"hi\"\"\",2\n\"two\nlines\",3\n"));
    }
    void exactFormatIsShortestRoundTrip() {
        QCOMPARE(formatExact(0.1), QString("0.1"));
        QCOMPARE(formatExact(2.0), QString("2"));
        QCOMPARE(formatExact(-1.5e-7), QString("-1.5e-07"));
        // 0.1 + 0.2 is not 0.3 in binary; the exact form must keep the difference.
        const double sum = 0.1 + 0.2;
        QCOMPARE(formatExact(sum), QString("0.30000000000000004"));
        QCOMPARE(formatExact(sum).toDouble(), sum);
    }
};

QTEST_GUILESS_MAIN(TstPlotTable)
#include "tst_plot_table.moc"
