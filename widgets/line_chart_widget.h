#pragma once
// Mean lines with a shaded band (e.g. ±1 std over seeds, or a confidence interval),
// e.g. loss or λ weight per step. Bands are a light, borderless fill in the line's own colour,
// so overlapping bands stay distinguishable.
#include "widgets/chart_widget.h"

#include <QList>
#include <QString>
#include <QVector>

class QCPGraph;

namespace dpmix::widgets {

struct LineSeries {
    QString name;
    QVector<double> x;  // strictly increasing
    QVector<double> mean;
    QVector<double> lower;  // band; empty (with upper) = no band
    QVector<double> upper;
    TidyFields fields;  // what the series is, for the CSV (e.g. method, component); empty: "series" = name
    /// A flat reference value (a baseline such as uniform weights) rather than a measured curve:
    /// drawn as a dashed line without markers, its band as two faint dotted edges with no fill,
    /// so it hides none of the curves' bands. The CSV is the same either way.
    bool reference = false;
};

/// Opacity (of 255) of a band's fill, and of a reference value's dotted band edges.
inline constexpr int kBandAlpha = 40;
inline constexpr int kReferenceEdgeAlpha = 150;

/// Returns an empty string when every series is plottable (equal lengths, x increasing,
/// lower <= mean <= upper), else a message naming the series, point and problem.
QString validateLineSeries(const QList<LineSeries>& series);

class LineChartWidget : public ChartWidget {
    Q_OBJECT

public:
    explicit LineChartWidget(QWidget* parent = nullptr);

    /// Replaces the plotted data; invalid data is rejected (returns the reason, plot unchanged).
    /// On a logarithmic y axis every mean and band value must be > 0.
    QString setSeries(const QList<LineSeries>& series);

    /// A logarithmic y axis (e.g. perplexity, where methods differ by factors). Refused, with the
    /// reason, when the current data has a value <= 0; the plot is then unchanged.
    QString setLogarithmicY(bool on);
    bool logarithmicY() const { return logY_; }
    /// A logarithmic x axis with ticks at powers of two (e.g. ε swept 0.25 … 8). Refused, with
    /// the reason, when an x value is <= 0.
    QString setLogarithmicX(bool on);
    bool logarithmicX() const { return logX_; }
    const QList<LineSeries>& series() const { return series_; }

    /// One row per point: the series' fields, the x column (csvXColumn()), "value" (the mean)
    /// and, with a band, "lower" and "upper".
    PlotTable plottedTable() const override;
    void rescaleToData() override;

protected:
    QString tooltipAt(const QPointF& pos) const override;

private:
    QList<LineSeries> series_;
    QList<QCPGraph*> meanGraphs_;
    bool logY_ = false;
    bool logX_ = false;
};

}  // namespace dpmix::widgets
