#pragma once
// The comparison tab: a parameter-diff table (one column per run; the rows whose values differ
// are bold and highlighted, and "Differences only" hides the rest), the runs' metrics as a
// table and, one metric at a time (each metric its own axis: an AUC and a perplexity never share
// one), as bars per run, and a chosen curve of every run overlaid. The pinned baseline,
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
    QComboBox* metricSelector() const { return metric_; }
    widgets::BarChartWidget* metricChart() const { return metricChart_; }
    widgets::LineChartWidget* curveChart() const { return curveChart_; }

private:
    void fillParameters();
    void fillMetrics();
    void showCurve(const QString& name);
    void showMetric(int index);

    RunComparison comparison_;
    std::vector<RunResults> runs_;  // copies, in comparison order (the snapshot may be rebuilt)
    QTableWidget* parameters_;
    QTableWidget* metrics_;
    QCheckBox* differencesOnly_;
    QComboBox* curve_;
    QComboBox* metric_;
    widgets::BarChartWidget* metricChart_;
    widgets::LineChartWidget* curveChart_;
};

}  // namespace dpmix::workbench
