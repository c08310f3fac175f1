#include "app/workbench/views/perplexity_view.h"
#include "app/workbench/help/view_help.h"
#include "app/workbench/views/result_data.h"
#include "app/workbench/views/tidy_fields.h"
#include "engine/methods/method_plan.h"

#include <QComboBox>
#include <QLabel>

#include <algorithm>
#include <cmath>
#include <map>

namespace dpmix::workbench {
namespace {

const std::string kCurve = "test-perplexity";

const std::vector<project::CurvePoint>* perplexityCurve(const RunResults& r) {
    const auto it = r.curves.find(kCurve);
    return it == r.curves.end() || it->second.empty() ? nullptr : &it->second;
}

bool sameEpsilon(const std::optional<double>& a, const std::optional<double>& b) {
    if (!a || !b) return !a && !b;
    return std::abs(*a - *b) <= 1e-12 * std::max(1.0, std::abs(*b));
}

int methodRank(const std::string& method) {
    const auto m = methods::methodOfRun(method);
    return m ? methods::paperRank(*m) : 5;
}

}  // namespace

QString PerplexitySelection::label() const {
    const QString name = task.empty() ? QObject::tr("(single task)") : QString::fromStdString(task);
    return epsilon ? QObject::tr("%1 — ε = %2").arg(name).arg(*epsilon) : QObject::tr("%1 — no ε").arg(name);
}

std::vector<PerplexitySelection> perplexitySelections(const ProjectSnapshot& project) {
    std::vector<PerplexitySelection> out;
    for (const auto& task : project.taskNames()) {
        std::vector<std::optional<double>> epsilons;
        for (const auto& r : project.runs) {
            if (!r.done() || r.run.task != task || !perplexityCurve(r)) continue;
            if (std::none_of(epsilons.begin(), epsilons.end(),
                             [&](const auto& e) { return sameEpsilon(e, r.run.epsilon); }))
                epsilons.push_back(r.run.epsilon);
        }
        std::sort(epsilons.begin(), epsilons.end());  // no ε first, then ascending
        for (const auto& e : epsilons) out.push_back({task, e});
    }
    return out;
}

QList<widgets::LineSeries> perplexitySeries(const ProjectSnapshot& project, const PerplexitySelection& selection) {
    // method → step → the runs' perplexities at that step; and how many runs each method has.
    std::map<std::string, std::map<long long, std::vector<double>>> byMethod;
    std::map<std::string, int> runs;
    for (const auto& r : project.runs) {
        const auto* curve = perplexityCurve(r);
        if (!r.done() || !curve || r.run.task != selection.task || !sameEpsilon(r.run.epsilon, selection.epsilon))
            continue;
        ++runs[r.run.method];
        for (const auto& p : *curve) byMethod[r.run.method][p.step].push_back(p.value);
    }
    std::vector<std::string> methods;
    for (const auto& [method, steps] : byMethod) methods.push_back(method);
    std::stable_sort(methods.begin(), methods.end(),
                     [](const std::string& a, const std::string& b) { return methodRank(a) < methodRank(b); });
    QList<widgets::LineSeries> out;
    for (const auto& method : methods) {
        widgets::LineSeries s;
        const int n = runs[method];
        s.name = honestMethodLabel(method) + (n > 1 ? QObject::tr(" (%1 runs)").arg(n) : QString());
        s.fields = {{QStringLiteral("task"), taskCell(selection.task)},
                    {QStringLiteral("epsilon"), runEpsilonCell(method, selection.epsilon)},
                    {QStringLiteral("method"), QString::fromStdString(method)},
                    {QStringLiteral("metric"), QStringLiteral("test_perplexity")},
                    {QStringLiteral("runs"), QString::number(n)}};
        for (const auto& [step, values] : byMethod[method]) {
            double sum = 0.0;
            for (double v : values) sum += v;
            s.x << static_cast<double>(step);
            s.mean << sum / static_cast<double>(values.size());
            if (n > 1) {
                s.lower << *std::min_element(values.begin(), values.end());
                s.upper << *std::max_element(values.begin(), values.end());
            }
        }
        out << s;
    }
    return out;
}

PerplexityView::PerplexityView(ProjectSnapshot project, QWidget* parent)
    : ResultPageView(parent),
      project_(std::move(project)),
      selections_(perplexitySelections(project_)),
      selector_(new QComboBox),
      chart_(new widgets::LineChartWidget) {
    addControl(new QLabel(tr("Task:")));
    selector_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    addControl(selector_);
    chart_->setAxisLabels(tr("fine-tuning step"), tr("test perplexity (log scale)"));
    chart_->setAxisToolTips({}, glossaryToolTip(GlossaryTerm::Perplexity));
    setWhatsThis(viewWhatsThis(ResultView::Perplexity));
    // Perplexity is ≥ 1 and methods differ by factors (Random Init ~10× the others): log y keeps
    // every curve readable.
    chart_->setLogarithmicY(true);
    chart_->setCsvXColumn(QStringLiteral("step"));
    setChart(chart_);
    for (const auto& s : selections_) selector_->addItem(s.label());
    connect(selector_, &QComboBox::currentIndexChanged, this, &PerplexityView::showSelection);
    if (selections_.empty())
        showEmptyState(
            tr("No test perplexity curves in this project yet. They come from fine-tuning each method's "
               "language model on the sensitive text, which the command-line tool runs for a text study "
               "(see Help ▸ Manual for this view)."));
    else
        showSelection(0);
}

void PerplexityView::showSelection(int index) {
    if (index < 0 || index >= static_cast<int>(selections_.size())) return;
    chart_->setTitle(
        tr("Test perplexity during fine-tuning — %1\n(mean over runs; band: min–max)").arg(selections_[index].label()));
    setNote(chart_->setSeries(perplexitySeries(project_, selections_[index])));
}

}  // namespace dpmix::workbench
