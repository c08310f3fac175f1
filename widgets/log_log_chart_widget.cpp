#include "widgets/log_log_chart_widget.h"

#include "widgets/chart_palette.h"
#include "widgets/qcp.h"

#include <algorithm>
#include <cmath>

namespace dpmix::widgets {

QString validateLogLogSeries(const QList<LogLogSeries>& series) {
    for (const LogLogSeries& s : series) {
        const auto n = s.x.size();
        if (s.y.size() != n)
            return QStringLiteral("series \"%1\": %2 y values for %3 x values").arg(s.name).arg(s.y.size()).arg(n);
        if (!s.errors.isEmpty() && s.errors.size() != n)
            return QStringLiteral("series \"%1\": %2 error bars for %3 points").arg(s.name).arg(s.errors.size()).arg(n);
        for (qsizetype i = 0; i < n; ++i) {
            if (!(s.x[i] > 0.0) || !std::isfinite(s.x[i]))
                return QStringLiteral(
                           "series \"%1\": x[%2] = %3 cannot be shown on a log axis: expected a finite value > 0")
                    .arg(s.name)
                    .arg(i)
                    .arg(formatExact(s.x[i]));
            if (!(s.y[i] > 0.0) || !std::isfinite(s.y[i]))
                return QStringLiteral(
                           "series \"%1\": y = %2 at x = %3 cannot be shown on a log axis: expected a finite value > 0")
                    .arg(s.name, formatExact(s.y[i]), formatExact(s.x[i]));
            if (i > 0 && !(s.x[i] > s.x[i - 1]))
                return QStringLiteral("series \"%1\": x[%2] = %3 does not increase (previous %4)")
                    .arg(s.name)
                    .arg(i)
                    .arg(formatExact(s.x[i]), formatExact(s.x[i - 1]));
            if (!s.errors.isEmpty() && !(s.errors[i] >= 0.0))
                return QStringLiteral("series \"%1\": error bar %2 at x = %3: expected a half-width >= 0")
                    .arg(s.name, formatExact(s.errors[i]), formatExact(s.x[i]));
        }
    }
    return {};
}

LogLogChartWidget::LogLogChartWidget(QWidget* parent) : ChartWidget(parent) {
    for (QCPAxis* axis : {plot()->xAxis, plot()->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
        axis->setNumberFormat("gb");
        axis->setNumberPrecision(3);
        axis->grid()->setSubGridVisible(true);
    }
}

QString LogLogChartWidget::setSeries(const QList<LogLogSeries>& series) {
    if (QString error = validateLogLogSeries(series); !error.isEmpty()) return error;
    series_ = series;
    plot()->clearPlottables();
    graphs_.clear();
    int dataIndex = 0;
    for (const LogLogSeries& s : series_) {
        QCPGraph* graph = plot()->addGraph();
        graph->setName(s.name);
        graph->setData(s.x, s.y, true);
        if (s.reference) {
            graph->setPen(QPen(QColor(110, 110, 110), 1.5, Qt::DashLine));
        } else {
            const QColor color = seriesColor(dataIndex++);
            graph->setPen(QPen(color, 2.0));
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 7));
        }
        graphs_ << graph;
        if (s.errors.isEmpty()) continue;
        // A lower end <= 0 has no place on a log axis: that whisker is not drawn (the tooltip and
        // the CSV keep the full ± value).
        QVector<double> minus, plus;
        for (qsizetype i = 0; i < s.x.size(); ++i) {
            minus << (s.y[i] - s.errors[i] > 0.0 ? s.errors[i] : 0.0);
            plus << s.errors[i];
        }
        auto* bars = new QCPErrorBars(plot()->xAxis, plot()->yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(graph);
        bars->setData(minus, plus);
        bars->setPen(QPen(graph->pen().color(), 1.2));
        bars->setWhiskerWidth(6);
    }
    rescaleToData();
    return {};
}

void LogLogChartWidget::rescaleToData() {
    double xlo = HUGE_VAL, xhi = 0.0, ylo = HUGE_VAL, yhi = 0.0;
    for (const LogLogSeries& s : series_)
        for (qsizetype i = 0; i < s.x.size(); ++i) {
            const double e = s.errors.isEmpty() ? 0.0 : s.errors[i];
            xlo = std::min(xlo, s.x[i]);
            xhi = std::max(xhi, s.x[i]);
            ylo = std::min(ylo, s.y[i] - e > 0.0 ? s.y[i] - e : s.y[i]);
            yhi = std::max(yhi, s.y[i] + e);
        }
    if (xhi <= 0.0) {  // nothing plotted
        xlo = ylo = 1.0;
        xhi = yhi = 10.0;
    }
    // Pad by a factor (log axes); the legend sits below the axes and needs no headroom.
    plot()->xAxis->setRange(xlo / 1.3, xhi * 1.3);
    plot()->yAxis->setRange(ylo / 1.5, yhi * 1.5);
    plot()->replot();
}

PlotTable LogLogChartWidget::plottedTable() const {
    QList<TidyFields> rows;
    for (const LogLogSeries& s : series_) {
        const TidyFields fields = s.fields.isEmpty() ? TidyFields{{QStringLiteral("series"), s.name}} : s.fields;
        for (qsizetype i = 0; i < s.x.size(); ++i) {
            TidyFields row = withFields({{csvXColumn(), formatExact(s.x[i])}}, fields);
            setField(row, QStringLiteral("value"), formatExact(s.y[i]));
            if (!s.errors.isEmpty()) setField(row, QStringLiteral("std"), formatExact(s.errors[i]));
            rows << row;
        }
    }
    return tidyTable(rows);
}

QString LogLogChartWidget::tooltipAt(const QPointF& pos) const {
    double best = -1.0;
    QString text;
    for (int g = 0; g < graphs_.size(); ++g) {
        QVariant details;
        const double distance = graphs_[g]->selectTest(pos, false, &details);
        if (distance < 0 || distance > 8.0 || (best >= 0 && distance >= best)) continue;
        const auto selection = details.value<QCPDataSelection>();
        if (selection.isEmpty()) continue;
        const int i = selection.dataRange().begin();
        const LogLogSeries& s = series_[g];
        if (i < 0 || i >= s.x.size()) continue;
        best = distance;
        text = QStringLiteral("<b>%1</b><br>x = %2<br>y = %3")
                   .arg(s.name.toHtmlEscaped())
                   .arg(s.x[i], 0, 'g', 6)
                   .arg(s.y[i], 0, 'g', 4);
        if (!s.errors.isEmpty()) text += QStringLiteral(" ± %1").arg(s.errors[i], 0, 'g', 3);
    }
    return text;
}

}  // namespace dpmix::widgets
