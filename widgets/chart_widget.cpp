#include "widgets/chart_widget.h"

#include "widgets/qcp.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QToolTip>
#include <QVBoxLayout>

namespace dpmix::widgets {

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
    // The legend gets a column of its own right of the axes, so it never covers a bar or a line:
    // the legend in one row and an empty element taking the rest of the height in the other.
    // Axes and legend share one cell of the plot's layout, so a title added above spans both.
    legendColumn_ = new QCPLayoutGrid;
    QCPAxisRect* axes = plot_->axisRect();
    plot_->plotLayout()->take(axes);
    plot_->plotLayout()->simplify();
    auto* body = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(0, 0, body);
    body->addElement(0, 0, axes);
    body->addElement(0, 1, legendColumn_);
    body->setColumnStretchFactor(1, 0.001);
    axes->insetLayout()->take(plot_->legend);
    legendSpacer_ = new QCPLayoutElement(plot_);
    placeLegend(Qt::AlignTop);
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
    placeLegend(corner & Qt::AlignBottom ? Qt::AlignBottom : Qt::AlignTop);
    plot_->replot();
}

void ChartWidget::placeLegend(Qt::Alignment vertical) {
    // Taking what is not there only logs a QCustomPlot debug line (the first placement).
    if (plot_->legend->layout() == legendColumn_) legendColumn_->take(plot_->legend);
    if (legendSpacer_->layout() == legendColumn_) legendColumn_->take(legendSpacer_);
    legendColumn_->simplify();
    const bool top = vertical != Qt::AlignBottom;
    legendColumn_->addElement(0, 0, top ? static_cast<QCPLayoutElement*>(plot_->legend) : legendSpacer_);
    legendColumn_->addElement(1, 0, top ? legendSpacer_ : static_cast<QCPLayoutElement*>(plot_->legend));
    legendColumn_->setRowStretchFactor(top ? 0 : 1, 0.001);
    legendColumn_->setRowStretchFactor(top ? 1 : 0, 1.0);
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
    const QString error = exportPlot(*plot_, plottedTable(), path, format, size);
    if (error.isEmpty()) Q_EMIT exported(path);
    else Q_EMIT exportFailed(error);
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
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

}  // namespace dpmix::widgets
