#include "app/workbench/views/run_comparison_view.h"

#include "app/workbench/help/view_help.h"
#include "app/workbench/views/tidy_fields.h"
#include "widgets/bar_chart_widget.h"
#include "widgets/line_chart_widget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace dpmix::workbench {

namespace {
QString number(double v) { return std::isnan(v) ? QStringLiteral("—") : QString::number(v, 'g', 6); }
}  // namespace

RunComparisonView::RunComparisonView(const ProjectSnapshot& project, RunComparison comparison, QWidget* parent)
    : QWidget(parent),
      comparison_(std::move(comparison)),
      parameters_(new QTableWidget),
      metrics_(new QTableWidget),
      differencesOnly_(new QCheckBox(tr("&Differences only"))),
      curve_(new QComboBox),
      metric_(new QComboBox),
      metricChart_(new widgets::BarChartWidget),
      curveChart_(new widgets::LineChartWidget) {
    for (long long id : comparison_.runIds)
        if (const RunResults* r = project.findRun(id)) runs_.push_back(*r);
    parameters_->setObjectName("comparisonParameters");
    metrics_->setObjectName("comparisonMetrics");
    for (QTableWidget* t : {parameters_, metrics_}) {
        t->setEditTriggers(QAbstractItemView::NoEditTriggers);
        t->setAlternatingRowColors(true);
    }
    differencesOnly_->setToolTip(tr("Hide the configuration keys that are the same in every selected run"));
    setWhatsThis(viewWhatsThis(ResultView::Comparison));
    fillParameters();
    fillMetrics();

    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    const QString baseline = comparison_.baseline
                                 ? tr(" The pinned baseline (run %1) is the first column; metric cells "
                                      "show the difference to it.")
                                       .arg(*comparison_.baseline)
                                 : QString();
    auto* summary = new QLabel(tr("%n run(s) compared; %1 configuration key(s) differ (bold).", nullptr,
                                  static_cast<int>(comparison_.runIds.size()))
                                   .arg(comparison_.differingKeys().size()) +
                               baseline);
    summary->setWordWrap(true);
    leftLayout->addWidget(summary);
    leftLayout->addWidget(differencesOnly_);
    leftLayout->addWidget(parameters_, 3);
    leftLayout->addWidget(new QLabel(tr("Metrics")));
    leftLayout->addWidget(metrics_, 2);

    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto* metricRow = new QHBoxLayout;
    auto* metricLabel = new QLabel(tr("&Metric:"));
    metricLabel->setBuddy(metric_);
    metricRow->addWidget(metricLabel);
    metricRow->addWidget(metric_, 1);
    rightLayout->addLayout(metricRow);
    rightLayout->addWidget(metricChart_, 1);
    auto* curveRow = new QHBoxLayout;
    auto* curveLabel = new QLabel(tr("&Curve:"));
    curveLabel->setBuddy(curve_);
    curveRow->addWidget(curveLabel);
    curveRow->addWidget(curve_, 1);
    rightLayout->addLayout(curveRow);
    rightLayout->addWidget(curveChart_, 1);
    curve_->addItems(comparison_.curveNames);
    curve_->setEnabled(!comparison_.curveNames.isEmpty());

    auto* splitter = new QSplitter;
    splitter->addWidget(left);
    splitter->addWidget(right);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(differencesOnly_, &QCheckBox::toggled, this, [this](bool only) {
        for (int r = 0; r < static_cast<int>(comparison_.parameters.size()); ++r)
            parameters_->setRowHidden(r, only && !comparison_.parameters[r].differs);
    });
    connect(curve_, &QComboBox::currentTextChanged, this, &RunComparisonView::showCurve);
    for (const auto& m : comparison_.metrics) metric_->addItem(m.name);
    metric_->setEnabled(!comparison_.metrics.empty());
    connect(metric_, &QComboBox::currentIndexChanged, this, &RunComparisonView::showMetric);
    showMetric(0);
    if (!comparison_.curveNames.isEmpty()) showCurve(comparison_.curveNames.front());
}

void RunComparisonView::fillParameters() {
    const auto& ps = comparison_.parameters;
    parameters_->setColumnCount(static_cast<int>(comparison_.runIds.size()));
    parameters_->setRowCount(static_cast<int>(ps.size()));
    parameters_->setHorizontalHeaderLabels(comparison_.runLabels);
    const QColor highlight = palette().color(QPalette::Highlight).lighter(170);
    for (int r = 0; r < static_cast<int>(ps.size()); ++r) {
        auto* header = new QTableWidgetItem(ps[r].differs ? ps[r].key + QStringLiteral(" ≠") : ps[r].key);
        parameters_->setVerticalHeaderItem(r, header);
        for (int c = 0; c < ps[r].values.size(); ++c) {
            auto* item = new QTableWidgetItem(ps[r].values[c]);
            if (ps[r].differs) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setBackground(highlight);
                item->setToolTip(tr("%1 differs between the selected runs").arg(ps[r].key));
            }
            parameters_->setItem(r, c, item);
        }
    }
    parameters_->resizeColumnsToContents();
}

void RunComparisonView::fillMetrics() {
    const auto& ms = comparison_.metrics;
    metrics_->setColumnCount(static_cast<int>(comparison_.runIds.size()));
    metrics_->setRowCount(static_cast<int>(ms.size()));
    metrics_->setHorizontalHeaderLabels(comparison_.runLabels);
    for (int r = 0; r < static_cast<int>(ms.size()); ++r) {
        metrics_->setVerticalHeaderItem(r, new QTableWidgetItem(ms[r].name));
        for (int c = 0; c < static_cast<int>(ms[r].values.size()); ++c) {
            const double v = ms[r].values[c];
            QString text = number(v);
            // Difference to the pinned baseline (column 0 when pinned).
            if (comparison_.baseline && c > 0 && !std::isnan(v) && !std::isnan(ms[r].values[0]))
                text += QStringLiteral(" (Δ %1%2)")
                            .arg(v - ms[r].values[0] >= 0 ? "+" : "")
                            .arg(number(v - ms[r].values[0]));
            metrics_->setItem(r, c, new QTableWidgetItem(text));
        }
    }
    metrics_->resizeColumnsToContents();
}

void RunComparisonView::showMetric(int index) {
    const auto& ms = comparison_.metrics;
    if (index < 0 || index >= static_cast<int>(ms.size())) return;
    const auto& m = ms[static_cast<std::size_t>(index)];
    widgets::BarChartData bars;
    bars.categories = comparison_.runLabels;
    for (const RunResults& r : runs_) bars.categoryFields << runFields(r.run);
    if (bars.categoryFields.size() != bars.categories.size()) bars.categoryFields.clear();
    widgets::BarSeries series;
    series.name = m.name;
    series.fields = {{QStringLiteral("metric"), m.name}};
    for (double v : m.values) series.values << v;
    bars.series << series;
    metricChart_->setTitle(tr("%1 of the selected runs").arg(m.name));
    metricChart_->setAxisLabels(tr("run"), m.name);
    if (QString e = metricChart_->setData(bars); !e.isEmpty()) qWarning("comparison chart: %s", qPrintable(e));
}

void RunComparisonView::showCurve(const QString& name) {
    QList<widgets::LineSeries> series;
    for (std::size_t c = 0; c < runs_.size(); ++c) {
        const auto it = runs_[c].curves.find(name.toStdString());
        if (it == runs_[c].curves.end() || it->second.empty()) continue;
        widgets::LineSeries s;
        s.name = comparison_.runLabels[static_cast<int>(c)];
        s.fields = runFields(runs_[c].run);
        s.fields << widgets::TidyFields{{QStringLiteral("metric"), name}};
        for (const auto& p : it->second) {
            s.x << static_cast<double>(p.step);
            s.mean << p.value;
        }
        series << s;
    }
    curveChart_->setTitle(tr("%1 of the selected runs").arg(name));
    curveChart_->setAxisLabels(tr("step"), name);
    curveChart_->setCsvXColumn(QStringLiteral("step"));
    curveChart_->setSeries(series);
}

}  // namespace dpmix::workbench
