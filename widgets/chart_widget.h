#pragma once
// Common frame of every plot: a QCustomPlot with zoom (wheel) and pan (drag), hover tooltips,
// and a right-click menu exporting PNG (2x), PDF, SVG and CSV of the plotted numbers.
#include "widgets/plot_export.h"
#include "widgets/plot_table.h"
#include "widgets/tidy_table.h"

#include <QWidget>

#include <optional>

class QCustomPlot;
class QCPLayoutElement;
class QCPLayoutGrid;
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
    /// Where the legend sits in its row below the axes (default: centred), e.g. Qt::AlignLeft or
    /// Qt::AlignRight. The legend never covers the data; its entries wrap into as many columns
    /// as the plot's width holds.
    void setLegendCorner(Qt::Alignment corner);
    /// The range the value axis may show (e.g. [0, 1] for AUC, cosine or λ): zoom and padding
    /// stay inside it. Unset: whatever the data needs.
    void setValueDomain(double lo, double hi) { domain_ = ValueDomain{lo, hi}; }
    void clearValueDomain() { domain_.reset(); }
    struct ValueDomain {
        double lo, hi;
    };
    std::optional<ValueDomain> valueDomain() const { return domain_; }
    /// The file name the export dialog proposes, without suffix (e.g. "fashion-mnist-lambda").
    void setExportName(const QString& name) { exportName_ = name; }
    QString exportName() const { return exportName_; }

    /// The numbers currently plotted, one observation per row (what Export CSV writes; see
    /// tidy_table.h for the column order).
    virtual PlotTable plottedTable() const = 0;
    /// The CSV column of the x values of a line or log-log chart, e.g. "step", "epsilon", "k"
    /// (default "x"). A series field of the same name replaces the x value in that series' rows.
    void setCsvXColumn(const QString& column) { csvXColumn_ = column; }
    QString csvXColumn() const { return csvXColumn_; }

    /// Writes the chart; returns an empty string on success, else the reason.
    QString exportTo(const QString& path, ExportFormat format, const ExportSize& size = {});

    /// Resets the axes to show all data (also on double-click).
    virtual void rescaleToData() = 0;

    QCustomPlot* plot() const { return plot_; }

    /// What each axis means in plain language (e.g. what "weight λ_j" is), shown when the mouse
    /// is over the axis: its line, tick labels or title. Empty: none.
    void setAxisToolTips(const QString& x, const QString& y);
    QString xAxisToolTip() const { return xAxisTip_; }
    QString yAxisToolTip() const { return yAxisTip_; }

    /// What hovering at `pos` (plot pixel coordinates) shows: the data point there, else the
    /// axis's tooltip; empty elsewhere.
    QString tooltipTextAt(const QPointF& pos) const;

Q_SIGNALS:
    void exported(const QString& path);
    void exportFailed(const QString& message);

protected:
    /// Tooltip text for the data point under `pos` (plot pixel coordinates), or empty.
    virtual QString tooltipAt(const QPointF& pos) const = 0;
    QString title() const { return title_; }

protected:
    /// Sets the value (y) axis to [lo, hi] clamped to the domain (when set).
    void setValueRange(double lo, double hi);

private:
    QString exportName_ = QStringLiteral("plot");
    QString csvXColumn_ = QStringLiteral("x");
    QString xAxisTip_, yAxisTip_;
    std::optional<ValueDomain> domain_;
    QCPLayoutGrid* legendRow_ = nullptr;  // below the axes: a spacer, the legend, a spacer
    QCPLayoutElement* legendLeft_ = nullptr;
    QCPLayoutElement* legendRight_ = nullptr;
    void placeLegend(Qt::Alignment horizontal);
    void showContextMenu(const QPoint& pos);
    void exportWithDialog(ExportFormat format);
    void onMouseMove(QMouseEvent* event);

    QCustomPlot* plot_;
    QString title_;
    QCPTextElement* titleElement_ = nullptr;
};

}  // namespace dpmix::widgets
