#pragma once
// The comparison tab: a parameter-diff table (one column per run; the rows whose values differ
// are bold and highlighted, and "Differences only" hides the rest), the runs' metrics as a
// table and as grouped bars, and a chosen curve of every run overlaid. The pinned baseline,
// when selected, is the first column and the metric cells show the difference to it.
#include "app/workbench/views/run_comparison.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QTableWidget;

namespace dpmix::widgets {
class BarChartWidget;
class LineChartWidget;
}  // namespace dpmix::widgets

namespace dpmix::workbench {

class RunComparisonView : public QWidget {
    Q_OBJECT

public:
    RunComparisonView(const ProjectSnapshot& project, RunComparison comparison, QWidget* parent = nullptr);

    const RunComparison& comparison() const { return comparison_; }
    QTableWidget* parameterTable() const { return parameters_; }
    QTableWidget* metricTable() const { return metrics_; }
    QCheckBox* differencesOnlyBox() const { return differencesOnly_; }
    QComboBox* curveSelector() const { return curve_; }
    widgets::BarChartWidget* metricChart() const { return metricChart_; }
    widgets::LineChartWidget* curveChart() const { return curveChart_; }

private:
    void fillParameters();
    void fillMetrics();
    void showCurve(const QString& name);

    RunComparison comparison_;
    std::vector<RunResults> runs_;  // copies, in comparison order (the snapshot may be rebuilt)
    QTableWidget* parameters_;
    QTableWidget* metrics_;
    QCheckBox* differencesOnly_;
    QComboBox* curve_;
    widgets::BarChartWidget* metricChart_;
    widgets::LineChartWidget* curveChart_;
};

}  // namespace dpmix::workbench
