#include "widgets/chart_widget.h"

#include "widgets/qcp.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <numeric>

namespace dpmix::widgets {

namespace {

// The row below the axes that holds the legend. Before each layout (on screen and in every
// export, whatever its size) it wraps the legend's entries into the most columns the plot's
// width holds, then evens out the rows: 5 entries that fit 4 to a row are laid out 3 + 2.
class LegendRow : public QCPLayoutGrid {
public:
    explicit LegendRow(QCPLegend* legend) : legend_(legend) {}

    void update(UpdatePhase phase) override {
        if (phase == upPreparation && mParentPlot) wrapLegend();
        QCPLayoutGrid::update(phase);
    }

private:
    QCPLegend* legend_;

    void wrapLegend() {
        QVector<int> widths;
        for (int i = 0; i < legend_->elementCount(); ++i)
            if (QCPLayoutElement* item = legend_->elementAt(i))
                widths << std::max(item->minimumOuterSizeHint().width(), item->minimumSize().width());
        const auto count = static_cast<int>(widths.size());
        if (count == 0) return;
        const QMargins own = margins(), inner = legend_->margins();
        const int available = mParentPlot->viewport().width() - own.left() - own.right() - inner.left() -
                              inner.right() - 2;  // the border
        auto widthWith = [&](int columns) {
            QVector<int> column(columns, 0);
            for (int i = 0; i < count; ++i) column[i % columns] = std::max(column[i % columns], widths[i]);
            return std::accumulate(column.begin(), column.end(), 0) + (columns - 1) * legend_->columnSpacing();
        };
        int columns = count;
        while (columns > 1 && widthWith(columns) > available) --columns;
        const int rows = (count + columns - 1) / columns;
        if (const int even = (count + rows - 1) / rows; widthWith(even) <= available) columns = even;
        legend_->setWrap(columns);
        legend_->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-places the entries
    }
};

}  // namespace

ChartWidget::ChartWidget(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setContextMenuPolicy(Qt::CustomContextMenu);
    plot_->setMouseTracking(true);
    plot_->setMinimumSize(320, 220);
    plot_->legend->setVisible(true);
    plot_->legend->setBrush(QColor(255, 255, 255, 220));
    plot_->legend->setBorderPen(QPen(QColor(200, 200, 200)));
    plot_->legend->setColumnSpacing(14);
    // The legend gets a row of its own below the axes, so it never covers a bar or a line and the
    // data keep the whole width: a spacer, the legend and a spacer, the legend's entries wrapped
    // into as many columns as fit. Axes and legend share one cell of the plot's layout, so a
    // title added above spans both.
    QCPAxisRect* axes = plot_->axisRect();
    axes->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->take(axes);
    plot_->plotLayout()->simplify();
    auto* body = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(0, 0, body);
    legendRow_ = new LegendRow(plot_->legend);
    body->addElement(0, 0, axes);
    body->addElement(1, 0, legendRow_);
    body->setRowStretchFactor(1, 0.001);
    body->setRowSpacing(2);
    // Room for the border's right and bottom pixel: the legend's frame is drawn in full.
    legendRow_->setMargins(QMargins(4, 0, 4, 4));
    legendLeft_ = new QCPLayoutElement(plot_);
    legendRight_ = new QCPLayoutElement(plot_);
    legendRow_->addElement(0, 0, legendLeft_);
    legendRow_->addElement(0, 1, plot_->legend);
    legendRow_->addElement(0, 2, legendRight_);
    legendRow_->setColumnSpacing(0);
    placeLegend(Qt::AlignHCenter);
    connect(plot_, &QWidget::customContextMenuRequested, this, &ChartWidget::showContextMenu);
    connect(plot_, &QCustomPlot::mouseMove, this, &ChartWidget::onMouseMove);
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { rescaleToData(); });
}

ChartWidget::~ChartWidget() = default;

void ChartWidget::setTitle(const QString& title) {
    title_ = title;
    if (!titleElement_) {
        plot_->plotLayout()->insertRow(0);
        titleElement_ = new QCPTextElement(plot_, title, QFont(font().family(), font().pointSize() + 1, QFont::Bold));
        plot_->plotLayout()->addElement(0, 0, titleElement_);
    } else {
        titleElement_->setText(title);
    }
    plot_->replot();
}

void ChartWidget::setAxisLabels(const QString& x, const QString& y) {
    plot_->xAxis->setLabel(x);
    plot_->yAxis->setLabel(y);
    plot_->replot();
}

void ChartWidget::setAxisToolTips(const QString& x, const QString& y) {
    xAxisTip_ = x;
    yAxisTip_ = y;
}

QString ChartWidget::tooltipTextAt(const QPointF& pos) const {
    if (QString text = tooltipAt(pos); !text.isEmpty()) return text;
    // The axes know where they drew their line, tick labels and title (after a replot).
    if (!yAxisTip_.isEmpty() && plot_->yAxis->selectTest(pos, false) >= 0) return yAxisTip_;
    if (!xAxisTip_.isEmpty() && plot_->xAxis->selectTest(pos, false) >= 0) return xAxisTip_;
    return {};
}

void ChartWidget::setLegendCorner(Qt::Alignment corner) {
    placeLegend(corner & Qt::AlignHorizontal_Mask);
    plot_->replot();
}

void ChartWidget::placeLegend(Qt::Alignment horizontal) {
    // The legend keeps its natural width; the spacers share the rest of the row as aligned.
    constexpr double none = 0.001, all = 1.0;
    legendRow_->setColumnStretchFactor(0, horizontal & Qt::AlignLeft ? none : all);
    legendRow_->setColumnStretchFactor(1, none);
    legendRow_->setColumnStretchFactor(2, horizontal & Qt::AlignRight ? none : all);
}

void ChartWidget::setValueRange(double lo, double hi) {
    if (domain_) {
        lo = std::max(lo, domain_->lo);
        hi = std::min(hi, domain_->hi);
        if (!(hi > lo)) {
            lo = domain_->lo;
            hi = domain_->hi;
        }
    }
    plot_->yAxis->setRange(lo, hi);
}

QString ChartWidget::exportTo(const QString& path, ExportFormat format, const ExportSize& size) {
    // Which side of the trust boundary the numbers are on travels with the file (plot_export.h).
    // The nearest window that says so: a dialog's chart asks the dialog, then its parent window.
    QString label;
    for (const QWidget* w = window(); w && label.isNull();
         w = w->parentWidget() ? w->parentWidget()->window() : nullptr)
        if (const QVariant v = w->property(kTrustLabelProperty); v.isValid()) label = v.toString();
    const QString error = exportPlot(*plot_, plottedTable(), path, format, size, label);
    if (error.isEmpty())
        Q_EMIT exported(path);
    else
        Q_EMIT exportFailed(error);
    return error;
}

void ChartWidget::showContextMenu(const QPoint& pos) {
    QMenu menu(this);
    menu.addAction(tr("Export PNG (2x)…"), this, [this] { exportWithDialog(ExportFormat::Png); });
    menu.addAction(tr("Export PDF…"), this, [this] { exportWithDialog(ExportFormat::Pdf); });
    menu.addAction(tr("Export SVG…"), this, [this] { exportWithDialog(ExportFormat::Svg); });
    menu.addAction(tr("Export CSV (plotted numbers)…"), this, [this] { exportWithDialog(ExportFormat::Csv); });
    menu.addSeparator();
    menu.addAction(tr("Reset zoom"), this, [this] { rescaleToData(); });
    menu.exec(plot_->mapToGlobal(pos));
}

void ChartWidget::exportWithDialog(ExportFormat format) {
    // Proposes <export name>.<suffix> in the last folder used, and writes the chosen format's
    // suffix when the typed name lacks it (a dialog's filter does not add it on every platform).
    static QString lastFolder = QDir::homePath();
    const QString proposed = QDir(lastFolder).filePath(withFormatSuffix(exportName_, format));
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export plot"), proposed, exportFilter(format));
    if (chosen.isEmpty()) return;
    const QString path = withFormatSuffix(chosen, format);
    lastFolder = QFileInfo(path).absolutePath();
    exportTo(path, format);
}

void ChartWidget::onMouseMove(QMouseEvent* event) {
    const QString text = tooltipTextAt(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

}  // namespace dpmix::widgets
