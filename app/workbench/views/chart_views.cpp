#include "app/workbench/views/chart_views.h"

#include "app/workbench/help/view_help.h"
#include "app/workbench/views/result_data.h"
#include "widgets/bar_chart_widget.h"
#include "widgets/line_chart_widget.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace dpmix::workbench {
namespace {

QVBoxLayout* frame(QWidget* page, const QString& selectorLabel, QComboBox* selector, QLabel* note) {
    auto* layout = new QVBoxLayout(page);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(selectorLabel));
    selector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    row->addWidget(selector);
    row->addStretch(1);
    layout->addLayout(row);
    note->setWordWrap(true);
    note->hide();
    layout->addWidget(note);
    return layout;
}

void showNote(QLabel* note, const QString& text) {
    note->setText(text);
    note->setVisible(!text.isEmpty());
}

}  // namespace

LambdaView::LambdaView(ProjectSnapshot project, QWidget* parent)
    : QWidget(parent),
      project_(std::move(project)),
      selector_(new QComboBox),
      note_(new QLabel),
      chart_(new widgets::BarChartWidget) {
    frame(this, tr("Task:"), selector_, note_)->addWidget(chart_, 1);
    chart_->setAxisLabels(tr("mixture component"), tr("weight λ_j"));
    chart_->setAxisToolTips(glossaryToolTip(GlossaryTerm::Lambda), glossaryToolTip(GlossaryTerm::Lambda));
    setWhatsThis(viewWhatsThis(ResultView::Lambda));
    chart_->setValueDomain(0.0, 1.0);  // weights on the simplex
    // Start on the first (task, ε) with several DP runs (usually the spec's ε over its seeds).
    int start = 0, most = -1;
    for (const auto& s : lambdaSelections(project_)) {
        const auto data = lambdaChartData(project_, s);
        const int runs = data.series.isEmpty() || data.series[0].errors.isEmpty() ? 1 : 2;
        if (runs > most) {
            most = runs;
            start = selector_->count();
        }
        selector_->addItem(s.label());
    }
    connect(selector_, &QComboBox::currentIndexChanged, this, &LambdaView::showSelection);
    if (selector_->count() == 0)
        showNote(note_, tr("No finished DP-MixMin run yet: run DP-MixMin to learn λ."));
    else if (start == 0)
        showSelection(0);
    else
        selector_->setCurrentIndex(start);
}

void LambdaView::showSelection(int index) {
    const auto selections = lambdaSelections(project_);
    if (index < 0 || index >= static_cast<int>(selections.size())) return;
    chart_->setTitle(tr("Mixture weights λ — %1").arg(selections[index].label()));
    showNote(note_, chart_->setData(lambdaChartData(project_, selections[index])));
}

TrajectoryView::TrajectoryView(ProjectSnapshot project, QWidget* parent)
    : QWidget(parent),
      project_(std::move(project)),
      selector_(new QComboBox),
      note_(new QLabel),
      chart_(new widgets::LineChartWidget) {
    frame(this, tr("DP run:"), selector_, note_)->addWidget(chart_, 1);
    chart_->setAxisLabels(tr("EG step"), tr("weight λ_j"));
    chart_->setAxisToolTips(glossaryToolTip(GlossaryTerm::EgStep), glossaryToolTip(GlossaryTerm::Lambda));
    setWhatsThis(viewWhatsThis(ResultView::Trajectory));
    chart_->setValueDomain(0.0, 1.0);
    chart_->setCsvXColumn(QStringLiteral("step"));
    for (const RunResults* r : trajectoryRuns(project_)) selector_->addItem(runLabel(r->run));
    connect(selector_, &QComboBox::currentIndexChanged, this, &TrajectoryView::showRun);
    if (selector_->count() == 0)
        showNote(note_, tr("No DP-MixMin run has stored its λ iterates yet."));
    else
        showRun(0);
}

void TrajectoryView::showRun(int index) {
    const auto runs = trajectoryRuns(project_);
    if (index < 0 || index >= static_cast<int>(runs.size())) return;
    chart_->setTitle(tr("λ trajectory — %1").arg(runLabel(runs[index]->run)));
    showNote(note_, chart_->setSeries(trajectorySeries(*runs[index])));
}

TradeoffView::TradeoffView(ProjectSnapshot project, QWidget* parent)
    : QWidget(parent),
      project_(std::move(project)),
      selector_(new QComboBox),
      note_(new QLabel),
      chart_(new widgets::LineChartWidget) {
    frame(this, tr("Task:"), selector_, note_)->addWidget(chart_, 1);
    chart_->setAxisLabels(tr("privacy budget ε (log scale)"), tr("cosine similarity to λ*"));
    chart_->setAxisToolTips(glossaryToolTip(GlossaryTerm::Epsilon), glossaryToolTip(GlossaryTerm::Cosine));
    setWhatsThis(viewWhatsThis(ResultView::Tradeoff));
    chart_->setValueDomain(0.0, 1.0);  // λ ≥ 0, so the cosine of two weight vectors is in [0, 1]
    chart_->setLogarithmicX(true);     // ε > 0, swept by factors (0.25 … 8)
    chart_->setCsvXColumn(QStringLiteral("epsilon"));
    selector_->addItem(tr("All tasks"));
    for (const auto& t : project_.taskNames())
        selector_->addItem(t.empty() ? tr("(single task)") : QString::fromStdString(t));
    connect(selector_, &QComboBox::currentIndexChanged, this, &TradeoffView::showTask);
    showTask(0);
}

void TradeoffView::showTask(int index) {
    const auto tasks = project_.taskNames();
    std::optional<std::string> task;
    if (index > 0 && index <= static_cast<int>(tasks.size())) task = tasks[index - 1];
    chart_->setTitle(tr("Privacy–utility: cosine similarity of λ to λ* (mean ± std over runs)"));
    const auto series = tradeoffSeries(project_, task);
    if (!task) hasSeries_ = !series.isEmpty();
    const auto epsilons = runEpsilons(project_);
    QString note;
    if (series.isEmpty())
        note = tr("No finished DP-MixMin run yet.");
    else if (epsilons.size() < 2)
        note = tr("Only one ε has been run (ε = %1): run several ε (Parameters ▸ ε, then Run) to see the "
                  "trade-off as a curve.")
                   .arg(epsilons.front());
    if (const QString error = chart_->setSeries(series); !error.isEmpty()) note = error;
    showNote(note_, note);
}

}  // namespace dpmix::workbench
