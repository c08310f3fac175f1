#pragma once
// Test perplexity over the fine-tuning steps of the text study: per method the mean
// over its runs at each step, with a min–max band over the runs (seeds).
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/views/result_page_view.h"
#include "widgets/line_chart_widget.h"

#include <optional>
#include <vector>

class QComboBox;

namespace dpmix::workbench {

/// A (task, ε) with at least one finished run that stored a "test-perplexity" curve.
struct PerplexitySelection {
    std::string task;
    std::optional<double> epsilon;  // none: runs without an ε
    QString label() const;
};
std::vector<PerplexitySelection> perplexitySelections(const ProjectSnapshot& project);

/// One line per method (DP-MixMin first): at each step any of its runs reports, the mean of
/// those runs' perplexities and, with several runs, the band [min, max] over them.
QList<widgets::LineSeries> perplexitySeries(const ProjectSnapshot& project, const PerplexitySelection& selection);

class PerplexityView : public ResultPageView {
    Q_OBJECT

public:
    explicit PerplexityView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* selector() const { return selector_; }
    widgets::LineChartWidget* chart() const { return chart_; }

private:
    void showSelection(int index);
    ProjectSnapshot project_;
    std::vector<PerplexitySelection> selections_;
    QComboBox* selector_;
    widgets::LineChartWidget* chart_;
};

}  // namespace dpmix::workbench
