#pragma once
// Common frame of every plot: a QCustomPlot with zoom (wheel) and pan (drag), hover tooltips,
// and a right-click menu exporting PNG (2x), PDF, SVG and CSV of the plotted numbers.
#include "widgets/plot_export.h"
#include "widgets/plot_table.h"

#include <QWidget>

class QCustomPlot;
class QCPTextElement;
class QMouseEvent;

namespace dpmix::widgets {

class ChartWidget : public QWidget {
    Q_OBJECT

public:
    explicit ChartWidget(QWidget* parent = nullptr);
    ~ChartWidget() override;

    void setTitle(const QString& title);
    void setAxisLabels(const QString& x, const QString& y);
    /// Where the legend sits inside the plot (default top right), e.g. Qt::AlignBottom | Qt::AlignRight.
    void setLegendCorner(Qt::Alignment corner);
    /// The file name the export dialog proposes, without suffix (e.g. "fashion-mnist-lambda").
    void setExportName(const QString& name) { exportName_ = name; }
    QString exportName() const { return exportName_; }

    /// The numbers currently plotted (what Export CSV writes).
    virtual PlotTable plottedTable() const = 0;

    /// Writes the chart; returns an empty string on success, else the reason.
    QString exportTo(const QString& path, ExportFormat format, const ExportSize& size = {});

    /// Resets the axes to show all data (also on double-click).
    virtual void rescaleToData() = 0;

    QCustomPlot* plot() const { return plot_; }

    /// What hovering at `pos` (plot pixel coordinates) shows; empty off the data.
    QString tooltipTextAt(const QPointF& pos) const { return tooltipAt(pos); }

Q_SIGNALS:
    void exported(const QString& path);
    void exportFailed(const QString& message);

protected:
    /// Tooltip text for the data point under `pos` (plot pixel coordinates), or empty.
    virtual QString tooltipAt(const QPointF& pos) const = 0;
    QString title() const { return title_; }

private:
    QString exportName_ = QStringLiteral("plot");
    void showContextMenu(const QPoint& pos);
    void exportWithDialog(ExportFormat format);
    void onMouseMove(QMouseEvent* event);

    QCustomPlot* plot_;
    QString title_;
    QCPTextElement* titleElement_ = nullptr;
};

}  // namespace dpmix::widgets
