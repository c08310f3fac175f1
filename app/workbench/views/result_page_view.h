#pragma once
// The frame every plotted result view shares: a row of selectors on top, a note line for
// warnings (e.g. points a log axis cannot show), and either the chart or — when the project has
// no data for the view yet — a plain-language empty state with the button that produces it.
#include <QWidget>

class QAction;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace dpmix::widgets {
class ChartWidget;
}

namespace dpmix::workbench {

class ResultPageView : public QWidget {
    Q_OBJECT

public:
    explicit ResultPageView(QWidget* parent = nullptr);

    QLabel* note() const { return note_; }
    QLabel* emptyState() const { return emptyState_; }
    /// True while the empty-state message is shown instead of the chart.
    bool showsEmptyState() const;
    /// The empty state's button: it triggers `action` (the Run-menu action that fills the view)
    /// and follows its text and enabled state. Null hides it.
    void setEmptyStateAction(QAction* action);
    QPushButton* emptyStateButton() const { return emptyButton_; }

protected:
    /// Adds a selector (or its label) to the top row, after those added before.
    void addControl(QWidget* widget);
    void setChart(widgets::ChartWidget* chart);
    /// The chart with `below` under it (e.g. a gallery of the plotted examples), sharing the page.
    void setChart(widgets::ChartWidget* chart, QWidget* below);
    void showEmptyState(const QString& text);
    void showChart();
    /// Shows `text` above the chart; an empty text hides the line.
    void setNote(const QString& text);

private:
    QHBoxLayout* controls_;
    QLabel* note_;
    QLabel* emptyState_;
    QPushButton* emptyButton_;
    QWidget* emptyPage_;
    QStackedWidget* stack_;
};

}  // namespace dpmix::workbench
