#pragma once
// The regime map as a heat map, for teachers: one cell per (sensitive set size n, ε) of one pool
// kind, coloured by a paired difference DP-MixMin − baseline on a diverging scale centred on zero
// (green: DP-MixMin ahead, purple: behind, pale: about even; a colour scale beside it), each cell
// annotated with the difference and "*" when its 95% interval excludes zero. Columns are the
// measured sizes in increasing order (the map's sizes step in factors, so the axis reads as a log
// axis of categories), rows the measured ε. Plain values in: the workbench fills it from the
// engine's regime map (app/workbench/views/regime_map_dialog.h).
#include "widgets/chart_widget.h"

#include <QColor>
#include <QList>
#include <QString>

class QCPColorMap;
class QCPColorScale;
class QCPItemText;

namespace dpmix::widgets {

struct RegimeHeatCell {
    long long n = 0;       // sensitive examples (users at user level) the study held
    double epsilon = 0.0;  // > 0
    int seeds = 0;         // seeds behind the difference; 0: no baseline result (the cell shows none)
    double mean = 0.0;     // DP-MixMin − baseline, mean over the seeds
    double low = 0.0;      // 95% interval; equal to mean with one seed (no interval)
    double high = 0.0;
    bool hasInterval() const { return seeds >= 2; }
    /// The 95% interval excludes zero: DP-MixMin ahead or behind beyond seed noise.
    bool beyondNoise() const { return hasInterval() && (low > 0.0 || high < 0.0); }
};

class RegimeHeatMapWidget : public ChartWidget {
    Q_OBJECT

public:
    explicit RegimeHeatMapWidget(QWidget* parent = nullptr);

    /// Replaces the cells; `baseline` names what DP-MixMin is compared with ("Random Init"). A
    /// repeated (n, ε), n < 1, ε ≤ 0 or a non-finite difference is refused (returns the reason,
    /// the plot unchanged). An empty list shows an empty map.
    QString setCells(const QList<RegimeHeatCell>& cells, const QString& baseline);
    const QList<RegimeHeatCell>& cells() const { return cells_; }
    QString baseline() const { return baseline_; }

    /// Columns (n, increasing) and rows (ε, increasing) as drawn.
    const QList<long long>& sizes() const { return sizes_; }
    const QList<double>& epsilons() const { return epsilons_; }
    /// The cell drawn at (column, row), or null where the map has none (or no baseline result).
    const RegimeHeatCell* cellAt(int column, int row) const;
    /// The colour drawn there: the diverging scale's colour of the difference, else the grey of a
    /// cell without a result.
    QColor colorAt(int column, int row) const;
    /// The text written in the cell: "+0.031 *" ("*": beyond seed noise), "+0.004", or "—".
    QString annotationAt(int column, int row) const;
    /// The colour scale runs from −limit (purple) through 0 (white) to +limit (green).
    double colorLimit() const { return limit_; }
    /// The diverging scale's colour of a difference (for tests and the caption).
    QColor colorOf(double difference) const;
    static QColor missingColor();

    /// One row per cell with a result: epsilon, n, baseline, metric, value, lower, upper, seeds.
    PlotTable plottedTable() const override;
    void rescaleToData() override;

protected:
    QString tooltipAt(const QPointF& pos) const override;

private:
    void draw();
    void drawAnnotations();
    int indexOf(int column, int row) const;  // into cells_, or -1

    QList<RegimeHeatCell> cells_;
    QString baseline_;
    QList<long long> sizes_;
    QList<double> epsilons_;
    double limit_ = 0.01;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    QList<QCPItemText*> labels_;
};

}  // namespace dpmix::widgets
