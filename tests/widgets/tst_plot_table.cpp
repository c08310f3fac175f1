// CSV writing and exact number formatting for "Export CSV", and the tidy tables the charts
// export (one observation per row, columns in a fixed order). Expected strings are written by
// hand from RFC 4180's quoting rules.
#include "widgets/plot_table.h"
#include "widgets/tidy_table.h"

#include <QtTest>

using dpmix::widgets::formatExact;
using dpmix::widgets::PlotTable;
using dpmix::widgets::TidyFields;
using dpmix::widgets::tidyTable;

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
    void tidyColumnsComeInAFixedOrderWhateverTheRowsSay() {
        // Fields given in any order, some rows lacking some: identifying columns first (task,
        // epsilon, method, …, component), unknown ones next, then metric and the measurements.
        const QList<TidyFields> rows = {
            {{"value", "0.6"},
             {"component", "ab"},
             {"method", "dp-mixmin"},
             {"epsilon", "1"},
             {"task", "ac"},
             {"metric", "lambda"},
             {"std", "0.1"}},
            {{"note", "x"},
             {"method", "uniform"},
             {"component", "ab"},
             {"value", "0.5"},
             {"epsilon", "0"},
             {"task", "ac"},
             {"metric", "lambda"}},
        };
        const PlotTable t = tidyTable(rows);
        QCOMPARE(t.columns, (QStringList{"task", "epsilon", "method", "component", "note", "metric", "value", "std"}));
        QCOMPARE(t.rows.size(), 2);
        QCOMPARE(t.rows[0], (QStringList{"ac", "1", "dp-mixmin", "ab", "", "lambda", "0.6", "0.1"}));
        QCOMPARE(t.rows[1], (QStringList{"ac", "0", "uniform", "ab", "x", "lambda", "0.5", ""}));
    }
    void aRepeatedObservationIsWrittenOnce() {
        // A baseline drawn flat across the ε axis: two plotted points, one observation.
        TidyFields flat{{"epsilon", "0.25"}, {"method", "uniform"}, {"value", "0.5"}};
        dpmix::widgets::setField(flat, "epsilon", "0");  // replaces, does not append
        QCOMPARE(flat.size(), 3);
        TidyFields again = dpmix::widgets::withFields({{"epsilon", "8"}}, flat);
        QCOMPARE(again, flat);
        const PlotTable t = tidyTable({flat, again, {{"epsilon", "1"}, {"method", "dp-mixmin"}, {"value", "0.9"}}});
        QCOMPARE(t.toCsv(), QString("epsilon,method,value\n0,uniform,0.5\n1,dp-mixmin,0.9\n"));
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
