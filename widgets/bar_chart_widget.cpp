#include "widgets/bar_chart_widget.h"

#include "widgets/chart_palette.h"
#include "widgets/qcp.h"

#include <QFontMetrics>
#include <QtMath>

#include <algorithm>
#include <cmath>

namespace dpmix::widgets {

QString validateBarChartData(const BarChartData& data) {
    const auto n = data.categories.size();
    for (const BarSeries& s : data.series) {
        if (s.values.size() != n)
            return QStringLiteral("series \"%1\" has %2 values for %3 categories")
                .arg(s.name)
                .arg(s.values.size())
                .arg(n);
        if (!s.errors.isEmpty() && s.errors.size() != n)
            return QStringLiteral("series \"%1\" has %2 error bars for %3 categories")
                .arg(s.name)
                .arg(s.errors.size())
                .arg(n);
        for (double e : s.errors)
            if (!(e >= 0.0))
                return QStringLiteral("series \"%1\" has an error bar of %2: expected a half-width >= 0")
                    .arg(s.name, formatExact(e));
        if (!s.details.isEmpty() && s.details.size() != n)
            return QStringLiteral("series \"%1\" has %2 tooltip details for %3 categories")
                .arg(s.name)
                .arg(s.details.size())
                .arg(n);
    }
    if (!data.categoryFields.isEmpty() && data.categoryFields.size() != n)
        return QStringLiteral("%1 category fields for %2 categories").arg(data.categoryFields.size()).arg(n);
    if (!std::isfinite(data.axisFloor))
        return QStringLiteral("the axis floor is %1: expected a finite value").arg(formatExact(data.axisFloor));
    for (const ReferenceLine& r : data.references)
        if (!std::isfinite(r.value))
            return QStringLiteral("reference line \"%1\" is at %2: expected a finite value")
                .arg(r.name, formatExact(r.value));
    return {};
}

BarChartWidget::BarChartWidget(QWidget* parent) : ChartWidget(parent) { plot()->legend->setVisible(true); }

namespace {

// The series' values as labels above their bars, centred on each bar: the group places bars side
// by side, `width` apart (the 2 px spacing is negligible for a label).
void addValueLabels(QCustomPlot* plot, const BarSeries& series, const QVector<double>& ticks, double offset,
                    const QFont& font) {
    for (int i = 0; i < series.values.size(); ++i) {
        if (std::isnan(series.values[i])) continue;
        auto* label = new QCPItemText(plot);
        label->position->setType(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(ticks[i] + offset, series.values[i]);
        label->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
        label->setText(QString::number(series.values[i], 'g', 3));
        QFont small = font;
        small.setPointSizeF(small.pointSizeF() * 0.8);
        label->setFont(small);
        label->setPadding(QMargins(0, 0, 0, 2));
        label->setClipToAxisRect(true);
        label->setSelectable(false);
    }
}

// The series' error bars on `bars`, one per bar that is present.
void addErrorBars(QCustomPlot* plot, const BarSeries& series, QCPBars* bars, double width) {
    auto* errors = new QCPErrorBars(plot->xAxis, plot->yAxis);
    errors->removeFromLegend();
    errors->setDataPlottable(bars);
    QVector<double> present;
    for (int i = 0; i < series.values.size(); ++i)
        if (!std::isnan(series.values[i])) present << series.errors[i];
    errors->setData(present);
    errors->setPen(QPen(QColor(40, 40, 40), 1.2));
    errors->setWhiskerWidth(std::max(4.0, 40.0 * width));
}

// One series' bars in its palette colour. Missing bars (NaN) are left out of the plottable; the
// tooltip maps keys back to categories.
QCPBars* addSeriesBars(QCustomPlot* plot, const BarSeries& series, int index, const QVector<double>& ticks,
                       double width, QCPBarsGroup* group) {
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(series.name);
    bars->setWidth(width);
    const QColor color = seriesColor(index);
    bars->setPen(QPen(color.darker(130)));
    bars->setBrush(color);
    for (int i = 0; i < series.values.size(); ++i)
        if (!std::isnan(series.values[i])) bars->addData(ticks[i], series.values[i]);
    bars->setBarsGroup(group);
    return bars;
}

// Reference lines: a two-point dashed graph across all categories, so each has a legend entry.
void addReferenceLines(QCustomPlot* plot, const BarChartData& data) {
    for (int r = 0; r < data.references.size(); ++r) {
        QCPGraph* line = plot->addGraph();
        line->setName(data.references[r].name);
        line->setData({0.5, data.categories.size() + 0.5}, {data.references[r].value, data.references[r].value});
        line->setPen(QPen(QColor(200, 30, 30).darker(100 + 40 * r), 1.8, Qt::DashLine));
        line->setSelectable(QCP::stNone);
    }
}

// The category axis: one tick per category, its label slanted or upright when the names would
// overlap, and room right of the axes for the last slanted label.
void layOutCategoryAxis(QCustomPlot* plot, const QStringList& categories, const QVector<double>& ticks) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->setTicks(ticks, categories.toVector());
    plot->xAxis->setTicker(ticker);
    // Long category names would overlap side by side: slant them; many categories (a λ chart of
    // two dozen components) leave each less room than a slanted label needs: stand them upright.
    int characters = 0;
    for (const QString& c : categories) characters += static_cast<int>(c.size()) + 2;
    const double rotation = categories.size() > kUprightLabelsFrom ? 90.0 : characters > 70 ? 35.0 : 0.0;
    plot->xAxis->setTickLabelRotation(rotation);
    // A slanted label runs down and to the right of its tick, and QCustomPlot leaves out a label
    // that would cross the plot's edge: keep room right of the axes for the last one.
    QCPAxisRect* axes = plot->axisRect();
    if (rotation == 35.0 && !categories.isEmpty()) {
        const QFontMetrics metrics(plot->xAxis->tickLabelFont());
        const double angle = qDegreesToRadians(rotation);
        const int overhang = static_cast<int>(std::ceil(metrics.horizontalAdvance(categories.last()) * std::cos(angle) +
                                                        metrics.height() * std::sin(angle)));
        axes->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
        axes->setMargins(QMargins(0, 0, std::max(15, overhang), 0));  // only the right one is not automatic
    } else {
        axes->setAutoMargins(QCP::msAll);
    }
    plot->xAxis->setSubTicks(false);
    plot->xAxis->grid()->setVisible(false);
}

}  // namespace

QString BarChartWidget::setData(const BarChartData& data) {
    if (QString error = validateBarChartData(data); !error.isEmpty()) return error;
    data_ = data;
    plot()->clearPlottables();  // also the reference graphs
    plot()->clearItems();       // value labels
    bars_.clear();

    auto* group = new QCPBarsGroup(plot());
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(2);
    QVector<double> ticks;
    for (int i = 0; i < data_.categories.size(); ++i) ticks << i + 1;
    const int k = std::max(1, static_cast<int>(data_.series.size()));
    const double width = 0.8 / k;

    for (int s = 0; s < data_.series.size(); ++s) {
        const BarSeries& series = data_.series[s];
        QCPBars* bars = addSeriesBars(plot(), series, s, ticks, width, group);
        bars_ << bars;
        if (data_.valueLabels) addValueLabels(plot(), series, ticks, (s - (k - 1) / 2.0) * width, font());
        if (!series.errors.isEmpty()) addErrorBars(plot(), series, bars, width);
    }
    addReferenceLines(plot(), data_);
    layOutCategoryAxis(plot(), data_.categories, ticks);
    rescaleToData();
    return {};
}

void BarChartWidget::rescaleToData() {
    plot()->xAxis->setRange(0.4, data_.categories.size() + 0.6);
    double lo = data_.axisFloor, hi = data_.axisFloor;
    for (const BarSeries& s : data_.series)
        for (int i = 0; i < s.values.size(); ++i) {
            if (std::isnan(s.values[i])) continue;
            const double e = s.errors.isEmpty() ? 0.0 : s.errors[i];
            lo = std::min(lo, s.values[i] - e);
            hi = std::max(hi, s.values[i] + e);
        }
    for (const ReferenceLine& r : data_.references) {
        lo = std::min(lo, r.value);
        hi = std::max(hi, r.value);
    }
    if (hi <= lo) hi = lo + 1.0;
    const double pad = 0.08 * (hi - lo);  // the legend sits below the axes: only room for value labels
    setValueRange(lo < data_.axisFloor ? lo - pad : data_.axisFloor, hi + pad);
    plot()->replot();
}

PlotTable BarChartWidget::plottedTable() const {
    QList<TidyFields> rows;
    for (const BarSeries& s : data_.series) {
        const TidyFields seriesFields = s.fields.isEmpty() ? TidyFields{{QStringLiteral("series"), s.name}} : s.fields;
        for (int i = 0; i < data_.categories.size(); ++i) {
            if (std::isnan(s.values[i])) continue;  // not drawn: no observation
            TidyFields row = data_.categoryFields.isEmpty()
                                 ? TidyFields{{QStringLiteral("category"), data_.categories[i]}}
                                 : data_.categoryFields[i];
            row = withFields(row, seriesFields);
            setField(row, QStringLiteral("value"), formatExact(s.values[i]));
            if (!s.errors.isEmpty()) setField(row, data_.errorColumn, formatExact(s.errors[i]));
            rows << row;
        }
    }
    for (const ReferenceLine& r : data_.references) {
        TidyFields row = r.fields.isEmpty() ? TidyFields{{QStringLiteral("series"), r.name}} : r.fields;
        setField(row, QStringLiteral("value"), formatExact(r.value));
        rows << row;
    }
    return tidyTable(rows);
}

QString BarChartWidget::tooltipAt(const QPointF& pos) const {
    for (int s = 0; s < bars_.size(); ++s) {
        QVariant details;
        if (bars_[s]->selectTest(pos, false, &details) < 0) continue;
        const auto selection = details.value<QCPDataSelection>();
        if (selection.isEmpty()) continue;
        const int point = selection.dataRange().begin();
        if (point < 0 || point >= bars_[s]->dataCount()) continue;
        // Keys are 1-based category positions (missing bars are not in the data).
        const int i = static_cast<int>(std::lround(bars_[s]->data()->at(point)->key)) - 1;
        if (i < 0 || i >= data_.categories.size()) continue;
        const BarSeries& series = data_.series[s];
        QString text = QStringLiteral("<b>%1</b><br>%2: %3")
                           .arg(series.name.toHtmlEscaped(), data_.categories[i].toHtmlEscaped())
                           .arg(series.values[i], 0, 'g', 4);
        if (!series.errors.isEmpty()) text += QStringLiteral(" ± %1").arg(series.errors[i], 0, 'g', 3);
        if (!series.details.isEmpty() && !series.details[i].isEmpty())
            text += QStringLiteral("<br>") + series.details[i].toHtmlEscaped().replace('\n', QStringLiteral("<br>"));
        return text;
    }
    return {};
}

}  // namespace dpmix::widgets
