#pragma once
// The plotted result views of a project (central tabs): λ per task, λ trajectory per DP run,
// privacy–utility trade-off. Each is a selector over a foundation chart (hover, zoom, export).
#include "app/workbench/project/project_snapshot.h"

#include <QWidget>

class QComboBox;
class QLabel;

namespace dpmix::widgets {
class BarChartWidget;
class LineChartWidget;
}  // namespace dpmix::widgets

namespace dpmix::workbench {

class LambdaView : public QWidget {
    Q_OBJECT

public:
    explicit LambdaView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* selector() const { return selector_; }
    widgets::BarChartWidget* chart() const { return chart_; }

private:
    void showSelection(int index);
    ProjectSnapshot project_;
    QComboBox* selector_;
    QLabel* note_;
    widgets::BarChartWidget* chart_;
};

class TrajectoryView : public QWidget {
    Q_OBJECT

public:
    explicit TrajectoryView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* selector() const { return selector_; }
    widgets::LineChartWidget* chart() const { return chart_; }

private:
    void showRun(int index);
    ProjectSnapshot project_;
    QComboBox* selector_;
    QLabel* note_;
    widgets::LineChartWidget* chart_;
};

class TradeoffView : public QWidget {
    Q_OBJECT

public:
    explicit TradeoffView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* selector() const { return selector_; }
    widgets::LineChartWidget* chart() const { return chart_; }
    QLabel* note() const { return note_; }
    /// Whether any task has a DP-MixMin curve: a release without one leaves the page out.
    bool hasSeries() const { return hasSeries_; }

private:
    void showTask(int index);
    ProjectSnapshot project_;
    bool hasSeries_ = false;
    QComboBox* selector_;
    QLabel* note_;
    widgets::LineChartWidget* chart_;
};

}  // namespace dpmix::workbench
