#include "app/workbench/views/kscaling_view.h"

#include "app/workbench/help/view_help.h"
#include "app/workbench/views/result_data.h"
#include "app/workbench/views/tidy_fields.h"

#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>

#include <cmath>

namespace dpmix::workbench {
namespace {

const std::string kExcess = "excess";
const std::string kPerTask = "excess/";

double fitThreshold(const RunResults& run) {
    const QJsonObject config = QJsonDocument::fromJson(QByteArray::fromStdString(run.run.configJson)).object();
    return config.value("min_k_for_fit").toDouble(32.0);
}

}  // namespace

std::vector<const RunResults*> kScalingRuns(const ProjectSnapshot& project) {
    std::vector<const RunResults*> out;
    for (const auto& r : project.runs) {
        const auto it = r.curves.find(kExcess);
        if (r.run.method == "k-scaling" && r.done() && it != r.curves.end() && !it->second.empty()) out.push_back(&r);
    }
    return out;
}

KScalingChart kScalingChartData(const RunResults& run) {
    KScalingChart chart;
    std::vector<const std::vector<project::CurvePoint>*> perTask;
    for (const auto& [name, points] : run.curves)
        if (name.rfind(kPerTask, 0) == 0) perTask.push_back(&points);

    widgets::LogLogSeries measured;
    QStringList dropped;
    for (const auto& p : run.curves.at(kExcess)) {
        if (!(p.value > 0.0)) {
            dropped << QStringLiteral("k = %1 (%2)").arg(p.step).arg(p.value, 0, 'g', 3);
            continue;
        }
        std::vector<double> atK;
        for (const auto* curve : perTask)
            for (const auto& q : *curve)
                if (q.step == p.step) atK.push_back(q.value);
        measured.x << static_cast<double>(p.step);
        measured.y << p.value;
        measured.errors << (atK.size() > 1 ? meanAndStd(atK).second : 0.0);
    }
    if (perTask.size() < 2) measured.errors.clear();

    const double threshold = fitThreshold(run);
    const double slope = run.metric("slope");
    const double points = run.metric("slope-points");
    measured.name =
        perTask.size() > 1 ? QObject::tr("mean excess ± std over %1 tasks").arg(perTask.size()) : QObject::tr("excess");
    if (!std::isnan(slope)) {
        measured.name += QObject::tr(" · slope %1 (k ≥ %2").arg(slope, 0, 'f', 2).arg(threshold);
        measured.name += std::isnan(points) ? QStringLiteral(")") : QObject::tr(", %1 points)").arg(points);
    }
    const widgets::TidyFields runField{{QStringLiteral("run"), QString::number(run.run.id)}};
    measured.fields = widgets::withFields(runField, {{QStringLiteral("metric"), QStringLiteral("excess_error")}});
    if (!measured.x.isEmpty()) chart.series << measured;

    // √k through the first plotted point at or above the fit threshold.
    for (qsizetype i = 0; i < measured.x.size(); ++i) {
        if (measured.x[i] < threshold) continue;
        const double k0 = measured.x[i], y0 = measured.y[i];
        widgets::LogLogSeries reference;
        reference.name = QObject::tr("∝ √k (slope 0.5) through k = %1").arg(k0);
        reference.reference = true;
        reference.fields =
            widgets::withFields(runField, {{QStringLiteral("metric"), QStringLiteral("sqrt_k_reference")}});
        for (double k : measured.x) {
            reference.x << k;
            reference.y << y0 * std::sqrt(k / k0);
        }
        chart.series << reference;
        break;
    }

    QStringList notes;
    if (!dropped.isEmpty())
        notes << QObject::tr("Not shown on the log axes (excess ≤ 0, i.e. no measurable loss from privacy): %1.")
                     .arg(dropped.join(", "));
    if (std::isnan(slope))
        notes << QObject::tr("No slope stored for this run (it needs at least two k ≥ %1).").arg(threshold);
    chart.note = notes.join(' ');
    return chart;
}

KScalingView::KScalingView(ProjectSnapshot project, QWidget* parent)
    : ResultPageView(parent),
      project_(std::move(project)),
      runs_(kScalingRuns(project_)),
      selector_(new QComboBox),
      chart_(new widgets::LogLogChartWidget) {
    addControl(new QLabel(tr("k-scaling run:")));
    selector_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    addControl(selector_);
    chart_->setAxisLabels(tr("number of sources k"), tr("excess error F(λ_DP) − F(λ*)"));
    chart_->setCsvXColumn(QStringLiteral("k"));
    chart_->setAxisToolTips(glossaryToolTip(GlossaryTerm::Lambda), glossaryToolTip(GlossaryTerm::ExcessError));
    setWhatsThis(viewWhatsThis(ResultView::KScaling));
    setChart(chart_);
    for (const RunResults* r : runs_) selector_->addItem(runLabel(r->run));
    connect(selector_, &QComboBox::currentIndexChanged, this, &KScalingView::showRun);
    if (runs_.empty())
        showEmptyState(
            tr("No k-scaling experiment in this project yet. It measures how DP-MixMin's excess error "
               "grows with the number of public sources k (the command-line tool runs it: see Help ▸ "
               "Manual for this view)."));
    else if (runs_.size() == 1)
        showRun(0);
    else
        selector_->setCurrentIndex(static_cast<int>(runs_.size()) - 1);  // the latest (emits → showRun)
}

void KScalingView::showRun(int index) {
    if (index < 0 || index >= static_cast<int>(runs_.size())) return;
    const KScalingChart data = kScalingChartData(*runs_[index]);
    chart_->setTitle(tr("Excess error against the number of sources k (log-log)\n%1").arg(runLabel(runs_[index]->run)));
    const QString error = chart_->setSeries(data.series);
    setNote(error.isEmpty() ? data.note : error);
}

}  // namespace dpmix::workbench
