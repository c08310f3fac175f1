#pragma once
// Points (optionally with ± error bars) and reference lines on logarithmic x and y axes, e.g.
// the excess error of DP-MixMin against the number of sources k with a √k reference line.
#include "widgets/chart_widget.h"

#include <QList>
#include <QString>
#include <QVector>

class QCPGraph;

namespace dpmix::widgets {

struct LogLogSeries {
    QString name;            // legend entry
    QVector<double> x;       // > 0, strictly increasing
    QVector<double> y;       // > 0
    QVector<double> errors;  // ± half-widths of y, one per point; empty = no error bars
    bool reference = false;  // a dashed guide line without markers (e.g. ∝ √k), not data
    TidyFields fields;       // what the series is, for the CSV (e.g. metric); empty: "series" = name
};

/// Returns an empty string when every series can be drawn on log-log axes (equal lengths,
/// x > 0 increasing, y > 0, errors >= 0), else a message naming the series, point and problem.
QString validateLogLogSeries(const QList<LogLogSeries>& series);

class LogLogChartWidget : public ChartWidget {
    Q_OBJECT

public:
    explicit LogLogChartWidget(QWidget* parent = nullptr);

    /// Replaces the plotted data; invalid data is rejected (returns the reason, plot unchanged).
    QString setSeries(const QList<LogLogSeries>& series);
    const QList<LogLogSeries>& series() const { return series_; }

    /// One row per point: the series' fields, the x column (csvXColumn()), "value" and, with
    /// error bars, "std".
    PlotTable plottedTable() const override;
    void rescaleToData() override;

protected:
    QString tooltipAt(const QPointF& pos) const override;

private:
    QList<LogLogSeries> series_;
    QList<QCPGraph*> graphs_;
};

}  // namespace dpmix::widgets
