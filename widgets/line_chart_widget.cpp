#include "widgets/line_chart_widget.h"

#include <limits>

#include "widgets/chart_palette.h"
#include "widgets/qcp.h"

namespace dpmix::widgets {

QString validateLineSeries(const QList<LineSeries>& series) {
    for (const LineSeries& s : series) {
        const auto n = s.x.size();
        if (s.mean.size() != n)
            return QStringLiteral("series \"%1\": %2 means for %3 x values").arg(s.name).arg(s.mean.size()).arg(n);
        const bool band = !s.lower.isEmpty() || !s.upper.isEmpty();
        if (band && (s.lower.size() != n || s.upper.size() != n))
            return QStringLiteral("series \"%1\": the band needs %2 lower and upper values, got %3 and %4")
                .arg(s.name)
                .arg(n)
                .arg(s.lower.size())
                .arg(s.upper.size());
        for (qsizetype i = 0; i < n; ++i) {
            if (i > 0 && !(s.x[i] > s.x[i - 1]))
                return QStringLiteral("series \"%1\": x[%2] = %3 does not increase (previous %4)")
                    .arg(s.name)
                    .arg(i)
                    .arg(formatExact(s.x[i]), formatExact(s.x[i - 1]));
            if (band && !(s.lower[i] <= s.mean[i] && s.mean[i] <= s.upper[i]))
                return QStringLiteral("series \"%1\": at x = %2 the band [%3, %4] does not contain the mean %5")
                    .arg(s.name, formatExact(s.x[i]), formatExact(s.lower[i]), formatExact(s.upper[i]),
                         formatExact(s.mean[i]));
        }
    }
    return {};
}

LineChartWidget::LineChartWidget(QWidget* parent) : ChartWidget(parent) {}

namespace {

// The first value <= 0 of the means and bands, as a message; empty when all are positive.
QString nonPositiveValue(const QList<LineSeries>& series) {
    for (const LineSeries& s : series)
        for (const QVector<double>* values : {&s.mean, &s.lower, &s.upper})
            for (qsizetype i = 0; i < values->size(); ++i)
                if (!((*values)[i] > 0.0))
                    return QStringLiteral("series \"%1\": value %2 at x = %3 cannot be shown on a logarithmic axis")
                        .arg(s.name, formatExact((*values)[i]), formatExact(s.x[i]));
    return {};
}

}  // namespace

QString LineChartWidget::setLogarithmicY(bool on) {
    if (on && !logY_)
        if (QString error = nonPositiveValue(series_); !error.isEmpty()) return error;
    logY_ = on;
    QCPAxis* y = plot()->yAxis;
    if (on) {
        y->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        y->setTicker(ticker);
        y->setNumberFormat("gb");
        y->setNumberPrecision(3);
        y->grid()->setSubGridVisible(true);
    } else {
        y->setScaleType(QCPAxis::stLinear);
        y->setTicker(QSharedPointer<QCPAxisTicker>::create());
        y->setNumberFormat("g");
        y->setNumberPrecision(6);
        y->grid()->setSubGridVisible(false);
    }
    rescaleToData();
    plot()->replot();
    return {};
}

QString LineChartWidget::setLogarithmicX(bool on) {
    if (on && !logX_)
        for (const LineSeries& line : series_)
            for (double x : line.x)
                if (!(x > 0.0))
                    return QStringLiteral("series \"%1\": x = %2 cannot be shown on a logarithmic axis")
                        .arg(line.name, formatExact(x));
    logX_ = on;
    QCPAxis* x = plot()->xAxis;
    if (on) {
        x->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(2);  // privacy budgets are swept by doubling: 0.25, 0.5, 1, 2, 4, 8
        x->setTicker(ticker);
        x->setNumberFormat("g");
    } else {
        x->setScaleType(QCPAxis::stLinear);
        x->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    rescaleToData();
    return {};
}

QString LineChartWidget::setSeries(const QList<LineSeries>& series) {
    if (QString error = validateLineSeries(series); !error.isEmpty()) return error;
    if (logY_)
        if (QString error = nonPositiveValue(series); !error.isEmpty()) return error;
    if (logX_)
        for (const LineSeries& line : series)
            for (double x : line.x)
                if (!(x > 0.0))
                    return QStringLiteral("series \"%1\": x = %2 cannot be shown on a logarithmic axis")
                        .arg(line.name, formatExact(x));
    series_ = series;
    plot()->clearGraphs();
    meanGraphs_.clear();
    for (int s = 0; s < series_.size(); ++s) {
        const LineSeries& line = series_[s];
        const QColor color = seriesColor(s);
        if (!line.lower.isEmpty()) {
            QCPGraph* lower = plot()->addGraph();
            lower->setData(line.x, line.lower, true);
            lower->removeFromLegend();
            QCPGraph* upper = plot()->addGraph();
            upper->setData(line.x, line.upper, true);
            upper->removeFromLegend();
            if (line.reference) {
                // A baseline's spread: its edges only, faint, never a fill over other curves.
                QColor edge = color;
                edge.setAlpha(kReferenceEdgeAlpha);
                lower->setPen(QPen(edge, 1.0, Qt::DotLine));
                upper->setPen(QPen(edge, 1.0, Qt::DotLine));
            } else {
                lower->setPen(Qt::NoPen);
                upper->setPen(Qt::NoPen);
                QColor fill = color;
                fill.setAlpha(kBandAlpha);
                upper->setBrush(fill);
                upper->setChannelFillGraph(lower);
            }
        }
        QCPGraph* mean = plot()->addGraph();
        mean->setName(line.name);
        mean->setData(line.x, line.mean, true);
        // The palette has 8 colours; later series repeat them dashed so each line stays distinct.
        // A reference value is dashed and thinner, without markers: it is not a measured curve.
        if (line.reference) {
            mean->setPen(QPen(color, 1.6, Qt::DashLine));
        } else {
            mean->setPen(QPen(color, 2.0, s >= 8 ? Qt::DashLine : Qt::SolidLine));
            // Few points (e.g. one per ε): mark them, a line alone hides where the data are.
            if (line.x.size() <= 12) mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
        }
        meanGraphs_ << mean;
    }
    rescaleToData();
    return {};
}

void LineChartWidget::rescaleToData() {
    plot()->rescaleAxes(true);
    // A little headroom so the band's edge is not drawn on the frame.
    const QCPRange y = plot()->yAxis->range();
    if (logY_) {
        setValueRange(y.lower / 1.15, y.upper * 1.15);  // multiplicative headroom
    } else {
        const double pad = y.size() > 0 ? 0.05 * y.size() : 1.0;
        setValueRange(y.lower - pad, y.upper + pad);
    }
    const QCPRange x = plot()->xAxis->range();
    if (logX_) {
        // From the data (QCustomPlot widens a zero-size log range by decades): markers off the
        // frame, and a single x value gets a factor of two on each side.
        double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
        for (const LineSeries& line : series_)
            for (double v : line.x) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        if (hi > 0.0) {
            const double factor = hi > lo * 1.01 ? 1.25 : 2.0;
            plot()->xAxis->setRange(lo / factor, hi * factor);
        }
    } else if (x.size() <= 0) {
        plot()->xAxis->setRange(x.lower - 1.0, x.upper + 1.0);  // one x value: centre it
    } else if (series_.size() > 0 && meanGraphs_.first()->dataCount() <= 12) {
        plot()->xAxis->setRange(x.lower - 0.04 * x.size(), x.upper + 0.04 * x.size());  // markers off the frame
    }
    plot()->replot();
}

PlotTable LineChartWidget::plottedTable() const {
    QList<TidyFields> rows;
    for (const LineSeries& s : series_) {
        const TidyFields fields = s.fields.isEmpty() ? TidyFields{{QStringLiteral("series"), s.name}} : s.fields;
        for (qsizetype i = 0; i < s.x.size(); ++i) {
            TidyFields row = withFields({{csvXColumn(), formatExact(s.x[i])}}, fields);
            setField(row, QStringLiteral("value"), formatExact(s.mean[i]));
            if (!s.lower.isEmpty()) {
                setField(row, QStringLiteral("lower"), formatExact(s.lower[i]));
                setField(row, QStringLiteral("upper"), formatExact(s.upper[i]));
            }
            rows << row;
        }
    }
    return tidyTable(rows);
}

QString LineChartWidget::tooltipAt(const QPointF& pos) const {
    double best = -1.0;
    QString text;
    for (int s = 0; s < meanGraphs_.size(); ++s) {
        QVariant details;
        const double distance = meanGraphs_[s]->selectTest(pos, false, &details);
        if (distance < 0 || distance > 8.0 || (best >= 0 && distance >= best)) continue;
        const auto selection = details.value<QCPDataSelection>();
        if (selection.isEmpty()) continue;
        const int i = selection.dataRange().begin();
        const LineSeries& line = series_[s];
        if (i < 0 || i >= line.x.size()) continue;
        best = distance;
        text = QStringLiteral("<b>%1</b><br>x = %2<br>mean = %3")
                   .arg(line.name.toHtmlEscaped())
                   .arg(line.x[i], 0, 'g', 6)
                   .arg(line.mean[i], 0, 'g', 4);
        if (!line.lower.isEmpty())
            text += QStringLiteral("<br>band [%1, %2]").arg(line.lower[i], 0, 'g', 4).arg(line.upper[i], 0, 'g', 4);
    }
    return text;
}

}  // namespace dpmix::widgets
