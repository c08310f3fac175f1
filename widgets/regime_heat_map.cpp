#include "widgets/regime_heat_map.h"

#include "widgets/qcp.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dpmix::widgets {
namespace {

// ColorBrewer's PiYG, diverging and readable with the common colour-vision deficiencies: purple
// where DP-MixMin was behind, white at zero, green where it was ahead.
QCPColorGradient divergingGradient() {
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(0x8e, 0x01, 0x52));
    gradient.setColorStopAt(0.25, QColor(0xde, 0x77, 0xae));
    gradient.setColorStopAt(0.5, QColor(0xf7, 0xf7, 0xf7));
    gradient.setColorStopAt(0.75, QColor(0x7f, 0xbc, 0x41));
    gradient.setColorStopAt(1.0, QColor(0x27, 0x64, 0x19));
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(RegimeHeatMapWidget::missingColor());
    gradient.setLevelCount(255);  // odd: zero falls on a level of its own (white)
    return gradient;
}

QString signedText(double value) { return QString::asprintf("%+.3f", value); }

QString epsilonText(double epsilon) { return QString::number(epsilon, 'g', QLocale::FloatingPointShortest); }

bool sameEpsilon(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

QString checkCells(const QList<RegimeHeatCell>& cells) {
    for (qsizetype i = 0; i < cells.size(); ++i) {
        const RegimeHeatCell& c = cells[i];
        if (c.n < 1 || !(c.epsilon > 0.0) || !std::isfinite(c.epsilon))
            return QStringLiteral("cell %1: n = %2, ε = %3: expected n >= 1 and a finite ε > 0")
                .arg(i)
                .arg(c.n)
                .arg(formatExact(c.epsilon));
        if (!std::isfinite(c.mean) || !std::isfinite(c.low) || !std::isfinite(c.high))
            return QStringLiteral("cell n = %1, ε = %2: the difference and its interval must be finite numbers")
                .arg(c.n)
                .arg(formatExact(c.epsilon));
        for (qsizetype j = 0; j < i; ++j)
            if (cells[j].n == c.n && sameEpsilon(cells[j].epsilon, c.epsilon))
                return QStringLiteral("cell n = %1, ε = %2 is given twice").arg(c.n).arg(formatExact(c.epsilon));
    }
    return {};
}

// Dark text on light cells, white on dark ones.
QColor textColorOn(const QColor& background) {
    const double luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance < 0.5 ? QColor(Qt::white) : QColor(0x20, 0x20, 0x20);
}

}  // namespace

RegimeHeatMapWidget::RegimeHeatMapWidget(QWidget* parent) : ChartWidget(parent) {
    plot()->setInteractions(QCP::Interactions());  // a map of a few cells: nothing to zoom or pan
    plot()->legend->setVisible(false);
    map_ = new QCPColorMap(plot()->xAxis, plot()->yAxis);
    map_->setInterpolate(false);
    map_->setTightBoundary(false);
    map_->setGradient(divergingGradient());
    scale_ = new QCPColorScale(plot());
    scale_->setType(QCPAxis::atRight);
    scale_->setGradient(divergingGradient());
    scale_->setBarWidth(14);
    scale_->setRangeDrag(false);
    scale_->setRangeZoom(false);
    map_->setColorScale(scale_);
    // The scale sits right of the axes, in the grid that holds them (chart_widget.cpp), and its
    // bar spans exactly the axes' height.
    if (auto* grid = qobject_cast<QCPLayoutGrid*>(plot()->axisRect()->layout())) grid->addElement(0, 1, scale_);
    auto* margins = new QCPMarginGroup(plot());
    plot()->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    scale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    for (QCPAxis* axis : {plot()->xAxis, plot()->yAxis}) {
        axis->grid()->setVisible(false);
        axis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    }
    draw();
}

QColor RegimeHeatMapWidget::missingColor() { return QColor(0xd9, 0xd9, 0xd9); }

QString RegimeHeatMapWidget::setCells(const QList<RegimeHeatCell>& cells, const QString& baseline) {
    if (QString error = checkCells(cells); !error.isEmpty()) return error;
    cells_ = cells;
    baseline_ = baseline;
    sizes_.clear();
    epsilons_.clear();
    limit_ = 0.01;  // a map of ties keeps a scale a difference can be read against
    for (const RegimeHeatCell& c : cells_) {
        if (!sizes_.contains(c.n)) sizes_ << c.n;
        if (std::none_of(epsilons_.begin(), epsilons_.end(), [&](double e) { return sameEpsilon(e, c.epsilon); }))
            epsilons_ << c.epsilon;
        if (c.seeds > 0) limit_ = std::max(limit_, std::abs(c.mean));
    }
    std::sort(sizes_.begin(), sizes_.end());
    std::sort(epsilons_.begin(), epsilons_.end());
    draw();
    return {};
}

int RegimeHeatMapWidget::indexOf(int column, int row) const {
    if (column < 0 || row < 0 || column >= sizes_.size() || row >= epsilons_.size()) return -1;
    for (qsizetype i = 0; i < cells_.size(); ++i)
        if (cells_[i].n == sizes_[column] && sameEpsilon(cells_[i].epsilon, epsilons_[row])) return static_cast<int>(i);
    return -1;
}

const RegimeHeatCell* RegimeHeatMapWidget::cellAt(int column, int row) const {
    const int i = indexOf(column, row);
    return i >= 0 && cells_[i].seeds > 0 ? &cells_[i] : nullptr;
}

QColor RegimeHeatMapWidget::colorOf(double difference) const {
    QCPColorGradient gradient = divergingGradient();
    return QColor::fromRgb(gradient.color(difference, QCPRange(-limit_, limit_)));
}

QColor RegimeHeatMapWidget::colorAt(int column, int row) const {
    const RegimeHeatCell* cell = cellAt(column, row);
    return cell ? colorOf(cell->mean) : missingColor();
}

QString RegimeHeatMapWidget::annotationAt(int column, int row) const {
    const RegimeHeatCell* cell = cellAt(column, row);
    if (!cell) return QStringLiteral("—");
    return signedText(cell->mean) + (cell->beyondNoise() ? QStringLiteral(" *") : QString());
}

void RegimeHeatMapWidget::draw() {
    const int columns = std::max(1, static_cast<int>(sizes_.size()));
    const int rows = std::max(1, static_cast<int>(epsilons_.size()));
    map_->data()->setSize(columns, rows);
    map_->data()->setRange(QCPRange(0, columns - 1), QCPRange(0, rows - 1));
    for (int x = 0; x < columns; ++x)
        for (int y = 0; y < rows; ++y) {
            const RegimeHeatCell* cell = cellAt(x, y);
            map_->data()->setCell(x, y, cell ? cell->mean : std::numeric_limits<double>::quiet_NaN());
        }
    map_->setDataRange(QCPRange(-limit_, limit_));
    scale_->axis()->setLabel(baseline_.isEmpty() ? QString() : tr("DP-MixMin − %1 (AUC)").arg(baseline_));
    auto xTicks = qSharedPointerDynamicCast<QCPAxisTickerText>(plot()->xAxis->ticker());
    auto yTicks = qSharedPointerDynamicCast<QCPAxisTickerText>(plot()->yAxis->ticker());
    xTicks->clear();
    yTicks->clear();
    const QLocale english(QLocale::English);
    for (int x = 0; x < sizes_.size(); ++x) xTicks->addTick(x, english.toString(sizes_[x]));
    for (int y = 0; y < epsilons_.size(); ++y) yTicks->addTick(y, epsilonText(epsilons_[y]));
    drawAnnotations();
    rescaleToData();
}

void RegimeHeatMapWidget::drawAnnotations() {
    for (QCPItemText* label : labels_) plot()->removeItem(label);
    labels_.clear();
    QFont font = this->font();
    for (int x = 0; x < sizes_.size(); ++x)
        for (int y = 0; y < epsilons_.size(); ++y) {
            if (indexOf(x, y) < 0) continue;
            auto* label = new QCPItemText(plot());
            label->position->setType(QCPItemPosition::ptPlotCoords);
            label->position->setCoords(x, y);
            label->setPositionAlignment(Qt::AlignCenter);
            label->setText(annotationAt(x, y));
            const RegimeHeatCell* cell = cellAt(x, y);
            font.setBold(cell && cell->beyondNoise());
            label->setFont(font);
            label->setColor(textColorOn(colorAt(x, y)));
            label->setClipToAxisRect(true);
            labels_ << label;
        }
}

void RegimeHeatMapWidget::rescaleToData() {
    plot()->xAxis->setRange(-0.5, std::max(1, static_cast<int>(sizes_.size())) - 0.5);
    plot()->yAxis->setRange(-0.5, std::max(1, static_cast<int>(epsilons_.size())) - 0.5);
    scale_->setDataRange(QCPRange(-limit_, limit_));
    plot()->replot();
}

PlotTable RegimeHeatMapWidget::plottedTable() const {
    QList<TidyFields> rows;
    for (int y = 0; y < epsilons_.size(); ++y)
        for (int x = 0; x < sizes_.size(); ++x) {
            const RegimeHeatCell* c = cellAt(x, y);
            if (!c) continue;
            TidyFields row{{QStringLiteral("epsilon"), formatExact(c->epsilon)},
                           {QStringLiteral("n"), QString::number(c->n)},
                           {QStringLiteral("baseline"), baseline_},
                           {QStringLiteral("metric"), QStringLiteral("test_auc_dp_mixmin_minus_baseline")},
                           {QStringLiteral("value"), formatExact(c->mean)},
                           {QStringLiteral("seeds"), QString::number(c->seeds)}};
            if (c->hasInterval()) {
                setField(row, QStringLiteral("lower"), formatExact(c->low));
                setField(row, QStringLiteral("upper"), formatExact(c->high));
            }
            rows << row;
        }
    return tidyTable(rows);
}

QString RegimeHeatMapWidget::tooltipAt(const QPointF& pos) const {
    if (!plot()->axisRect()->rect().contains(pos.toPoint())) return {};
    const int x = static_cast<int>(std::lround(plot()->xAxis->pixelToCoord(pos.x())));
    const int y = static_cast<int>(std::lround(plot()->yAxis->pixelToCoord(pos.y())));
    if (indexOf(x, y) < 0) return {};
    QString text = tr("<b>n = %1, ε = %2</b><br>")
                       .arg(QLocale(QLocale::English).toString(sizes_[x]), epsilonText(epsilons_[y]).toHtmlEscaped());
    const RegimeHeatCell* c = cellAt(x, y);
    if (!c) return text + tr("no %1 result to compare with").arg(baseline_.toHtmlEscaped());
    text += tr("DP-MixMin − %1: %2").arg(baseline_.toHtmlEscaped(), signedText(c->mean));
    if (!c->hasInterval()) return text + tr(" AUC, one seed: no interval, no claim");
    text += tr(" [%1, %2] AUC, %3 seeds<br>").arg(signedText(c->low), signedText(c->high)).arg(c->seeds);
    if (c->beyondNoise()) return text + (c->mean > 0 ? tr("ahead beyond seed noise") : tr("behind beyond seed noise"));
    return text + tr("within seed noise (the interval holds zero)");
}

}  // namespace dpmix::widgets
