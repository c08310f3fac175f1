#pragma once
// Grouped bars with error bars and a legend, e.g. macro AUC per method per ε.
#include "widgets/chart_widget.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>

class QCPBars;

namespace dpmix::widgets {

struct BarSeries {
    QString name;            // legend entry, e.g. "DP-MixMin"
    QVector<double> values;  // one per category
    QVector<double> errors;  // ± half-widths, one per category; empty = no error bars
    QStringList details;     // extra tooltip text per category (plain text); empty = none
    TidyFields fields;       // what the series is, for the CSV, e.g. method and ε; empty: "series" = name
};

/// A horizontal line across the plot, e.g. the claimed ε an audit is measured against.
struct ReferenceLine {
    QString name;  // legend entry, e.g. "claimed ε = 1"
    double value = 0.0;
    TidyFields fields;  // what the line is, for the CSV, e.g. metric "claimed_epsilon"; empty: "series" = name
};

/// Above this many categories the tick labels stand upright (90°) instead of slanting.
inline constexpr int kUprightLabelsFrom = 16;

struct BarChartData {
    QStringList categories;   // x tick labels, e.g. "ε = 1", "ε = 2"
    QList<BarSeries> series;  // a NaN value is a missing bar (nothing drawn, "nan" in the CSV)
    QList<ReferenceLine> references;
    double axisFloor = 0.0;                         // the value axis starts here unless something plotted is lower
                                                    // (e.g. 0.5 = the AUC of a random guess)
    bool valueLabels = false;                       // print each bar's value above it (a bar of height 0 stays visible)
    QList<TidyFields> categoryFields;               // per category, for the CSV (e.g. task or component);
                                                    // empty: "category" = the tick label
    QString errorColumn = QStringLiteral("error");  // the CSV column of the error bars, e.g. "std"
};

/// Returns an empty string if every series has one value (and zero or one error >= 0, zero or
/// one detail) per category, the category fields are none or one per category, and every
/// reference line is finite, else a message naming the series or line and the mismatch.
QString validateBarChartData(const BarChartData& data);

class BarChartWidget : public ChartWidget {
    Q_OBJECT

public:
    explicit BarChartWidget(QWidget* parent = nullptr);

    /// Replaces the plotted data; invalid data is rejected (returns the reason, plot unchanged).
    QString setData(const BarChartData& data);
    const BarChartData& data() const { return data_; }

    /// One row per drawn bar (series × category; a missing bar has no row) with the category's
    /// and the series' fields, "value" and the error column; then one row per reference line.
    PlotTable plottedTable() const override;
    void rescaleToData() override;

protected:
    QString tooltipAt(const QPointF& pos) const override;

private:
    BarChartData data_;
    QList<QCPBars*> bars_;
};

}  // namespace dpmix::widgets
