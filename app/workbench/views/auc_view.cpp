#include "app/workbench/views/auc_view.h"

#include "app/workbench/help/view_help.h"
#include "app/workbench/views/result_data.h"
#include "app/workbench/views/tidy_fields.h"
#include "engine/methods/method_plan.h"
#include "engine/project/result_summary.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace dpmix::workbench {
namespace {

bool sameEpsilon(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

bool atEpsilon(const RunResults& r, std::optional<double> epsilon) {
    return !epsilon || !r.run.epsilon || sameEpsilon(*r.run.epsilon, *epsilon);
}

// The paper's order: the private method first, then the baselines, Random Init last.
int methodRank(const std::string& method) {
    const auto m = methods::methodOfRun(method);
    return m ? methods::paperRank(*m) : 5;
}

QString taskLabel(const std::string& task) {
    return task.empty() ? QObject::tr("(single task)") : QString::fromStdString(task);
}

QString number(double v, int digits = 3) { return QString::number(v, 'f', digits); }

// method → task → seed → AUC values of the runs of that seed.
using AucTable = std::map<std::string, std::map<std::string, std::map<long long, std::vector<double>>>>;

double average(const std::vector<double>& v) {
    double sum = 0.0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
}

}  // namespace

double downstreamTestAuc(const RunResults& run) {
    for (const auto& m : run.metrics)
        if (m.name == "test-auc") return m.value;
    return std::nan("");
}

std::vector<double> aucEpsilons(const ProjectSnapshot& project) {
    std::vector<double> out;
    for (const auto& r : project.runs) {
        if (!r.done() || !r.run.epsilon || std::isnan(downstreamTestAuc(r))) continue;
        if (std::none_of(out.begin(), out.end(), [&](double e) { return sameEpsilon(e, *r.run.epsilon); }))
            out.push_back(*r.run.epsilon);
    }
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

// The finished runs' test AUCs at `epsilon` (all ε when unset).
AucTable aucTable(const ProjectSnapshot& project, std::optional<double> epsilon) {
    AucTable table;
    for (const auto& r : project.runs) {
        const double auc = downstreamTestAuc(r);
        if (!r.done() || std::isnan(auc) || !atEpsilon(r, epsilon)) continue;
        table[r.run.method][r.run.task][r.run.seed].push_back(auc);
    }
    return table;
}

std::vector<std::string> methodsInPaperOrder(const AucTable& table) {
    std::vector<std::string> methods;
    for (const auto& [method, tasks] : table) methods.push_back(method);
    std::stable_sort(methods.begin(), methods.end(),
                     [](const std::string& a, const std::string& b) { return methodRank(a) < methodRank(b); });
    return methods;
}

// The tasks some method has results for, in the spec's order.
std::vector<std::string> tasksWithResults(const ProjectSnapshot& project, const AucTable& table) {
    std::vector<std::string> tasks;
    for (const auto& t : project.taskNames())
        for (const auto& [method, byTask] : table)
            if (byTask.count(t) && std::find(tasks.begin(), tasks.end(), t) == tasks.end()) tasks.push_back(t);
    return tasks;
}

// One value per seed: the method's AUC on the task, or its gain over Random Init of the same seed.
struct SeedValues {
    std::vector<double> values;
    std::vector<long long> seedIds;
    QStringList seeds;
};

SeedValues seedValues(AucTable& table, const std::string& method, const std::string& task, bool gain) {
    SeedValues out;
    const auto methodTask = table[method].find(task);
    if (methodTask == table[method].end()) return out;
    for (const auto& [seed, values] : methodTask->second) {
        double value = average(values);
        if (gain) {
            const auto& reference = table[methods::nameOf(methods::Method::RandomInit)][task];
            const auto ri = reference.find(seed);
            if (ri == reference.end()) continue;  // no Random Init of this seed to compare with
            const double base = average(ri->second);
            value = 100.0 * (value - base) / base;
        }
        out.values.push_back(value);
        out.seedIds.push_back(seed);
        out.seeds << QString::number(seed);
    }
    return out;
}

// The method's bars (mean ± std over seeds per task) named with its macro value, which is also
// appended to `macros`; nothing when it has no result on any task.
std::optional<widgets::BarSeries> methodSeries(AucTable& table, const std::string& method,
                                               const std::vector<std::string>& tasks, bool gain,
                                               std::optional<double> epsilon, QStringList& macros) {
    widgets::BarSeries series;
    std::vector<double> taskMeans;
    std::vector<project::ResultObservation> observations;  // the legend's macro, as `dpmix results` computes it
    int mostSeeds = 0;
    for (const auto& t : tasks) {
        const SeedValues perSeed = seedValues(table, method, t, gain);
        for (std::size_t i = 0; i < perSeed.values.size(); ++i)
            observations.push_back({method, t, perSeed.seedIds[i], 0.0, perSeed.values[i], 0});
        if (perSeed.values.empty()) {
            series.values << std::nan("");
            series.errors << 0.0;
            series.details << QString();
            continue;
        }
        const auto [mean, sd] = meanAndStd(perSeed.values);
        series.values << mean;
        series.errors << sd;
        series.details << (perSeed.values.size() == 1 ? QObject::tr("seed %1") : QObject::tr("seeds %1"))
                              .arg(perSeed.seeds.join(", "));
        taskMeans.push_back(mean);
        mostSeeds = std::max(mostSeeds, static_cast<int>(perSeed.values.size()));
    }
    if (taskMeans.empty()) return std::nullopt;
    // One macro-AUC definition (engine/project/result_summary.h): per seed the mean over its
    // tasks, then the mean over seeds; a seed that lacks a task is not filled in from others.
    const double macro = project::summarizeResults(observations).front().mean;
    const QString name = honestMethodLabel(method);
    const QString macroText =
        gain ? QObject::tr("%1%2%").arg(macro >= 0 ? "+" : "").arg(number(macro, 1)) : number(macro);
    series.name = QObject::tr("%1 · macro %2").arg(name, macroText);
    if (taskMeans.size() < tasks.size())
        series.name += QObject::tr(" (%1 of %2 tasks)").arg(taskMeans.size()).arg(tasks.size());
    if (mostSeeds < 2) series.errors.clear();  // one seed: no spread to show
    series.fields = {{QStringLiteral("epsilon"), runEpsilonCell(method, epsilon)},
                     {QStringLiteral("method"), QString::fromStdString(method)},
                     {QStringLiteral("metric"),
                      gain ? QStringLiteral("test_auc_gain_over_random_init_percent") : QStringLiteral("test_auc")}};
    macros << QStringLiteral("%1 %2").arg(name, macroText);
    return series;
}

// The macro values on the lines below the title, wrapped so a long method list stays readable.
QString macroLines(const QStringList& macros, bool gain) {
    QString out;
    QString line = gain ? QObject::tr("macro gain: ") : QObject::tr("macro AUC: ");
    for (int i = 0; i < macros.size(); ++i) {
        const QString item = macros[i] + (i + 1 < macros.size() ? QStringLiteral(" · ") : QString());
        if (line.size() + item.size() > 70 && i > 0) {
            out += QStringLiteral("\n") + line.trimmed();
            line.clear();
        }
        line += item;
    }
    if (!macros.isEmpty()) out += QStringLiteral("\n") + line.trimmed();
    return out;
}

}  // namespace

AucChart aucChartData(const ProjectSnapshot& project, std::optional<double> epsilon, AucMode mode) {
    AucTable table = aucTable(project, epsilon);
    const std::vector<std::string> methods = methodsInPaperOrder(table);
    const std::vector<std::string> tasks = tasksWithResults(project, table);

    AucChart chart;
    chart.hasRandomInit = table.count(methods::nameOf(methods::Method::RandomInit)) > 0;
    for (const auto& t : tasks) {
        chart.data.categories << taskLabel(t);
        chart.data.categoryFields << widgets::TidyFields{{QStringLiteral("task"), taskCell(t)}};
    }
    chart.data.errorColumn = QStringLiteral("std");
    const bool gain = mode == AucMode::GainOverRandomInit;
    const QString at = epsilon ? QObject::tr("ε = %1").arg(*epsilon) : QObject::tr("all ε");
    QStringList macros;
    for (const auto& method : methods) {
        if (gain && (method == methods::nameOf(methods::Method::RandomInit) || !chart.hasRandomInit)) continue;
        if (auto series = methodSeries(table, method, tasks, gain, epsilon, macros)) chart.data.series << *series;
    }
    chart.title =
        gain ? QObject::tr("Relative gain in test AUC over Random Init (%), %1 — mean ± std over seeds").arg(at)
             : QObject::tr("Test AUC per task, %1 — mean ± std over seeds").arg(at);
    chart.title += macroLines(macros, gain);
    // AUC 0.5 is a random guess: the axis starts there, so the differences between methods show.
    if (!gain) chart.data.axisFloor = 0.5;
    return chart;
}

AucView::AucView(ProjectSnapshot project, QWidget* parent)
    : ResultPageView(parent),
      project_(std::move(project)),
      epsilons_(aucEpsilons(project_)),
      epsilon_(new QComboBox),
      gain_(new QCheckBox(tr("Relative gain over Random Init"))),
      chart_(new widgets::BarChartWidget) {
    auto* label = new QLabel(tr("ε:"));
    addControl(label);
    addControl(epsilon_);
    addControl(gain_);
    for (double e : epsilons_) epsilon_->addItem(QString::number(e));
    // A selector with a single choice is noise: shown only when several ε are stored.
    label->setVisible(epsilons_.size() > 1);
    epsilon_->setVisible(epsilons_.size() > 1);
    gain_->setToolTip(
        tr("(AUC − AUC of Random Init) / AUC of Random Init, in %, per seed then averaged: "
           "what pretraining on the public mixture adds (the paper's Figure 3)"));
    chart_->setAxisLabels(tr("sensitive task"), tr("test AUC"));
    chart_->setAxisToolTips({}, glossaryToolTip(GlossaryTerm::Auc));
    label->setToolTip(glossaryToolTip(GlossaryTerm::Epsilon));
    setWhatsThis(viewWhatsThis(ResultView::Auc));
    setChart(chart_);
    connect(epsilon_, &QComboBox::currentIndexChanged, this, &AucView::refresh);
    connect(gain_, &QCheckBox::toggled, this, &AucView::refresh);
    refresh();
}

void AucView::refresh() {
    std::optional<double> epsilon;
    if (const int i = epsilon_->currentIndex(); i >= 0 && i < static_cast<int>(epsilons_.size()))
        epsilon = epsilons_[i];
    const bool wantGain = gain_->isChecked();
    AucChart result = aucChartData(project_, epsilon, wantGain ? AucMode::GainOverRandomInit : AucMode::Absolute);
    gain_->setEnabled(result.hasRandomInit || wantGain);
    if (result.data.series.isEmpty()) {
        setNote({});
        if (wantGain && !result.hasRandomInit)
            showEmptyState(
                tr("No Random Init run at this ε: compare with baselines including Random Init to see the gain."));
        else
            showEmptyState(
                tr("No downstream test AUC in this project yet — run DP-MixMin with fine-tuning, or "
                   "Compare with baselines, to fill this view."));
        return;
    }
    showChart();
    // AUC lives in [0, 1]; a gain in % has no fixed range.
    if (wantGain)
        chart_->clearValueDomain();
    else
        chart_->setValueDomain(0.0, 1.0);
    chart_->setTitle(result.title);
    chart_->setAxisLabels(tr("sensitive task"),
                          wantGain ? tr("gain over Random Init (%)") : tr("test AUC (axis from 0.5 = chance)"));
    setNote(chart_->setData(result.data));
}

}  // namespace dpmix::workbench
