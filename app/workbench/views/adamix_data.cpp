#include "app/workbench/views/adamix_data.h"
#include "engine/core/mean_std.h"

#include <QObject>

#include <algorithm>
#include <map>
#include <set>

namespace dpmix::workbench {
namespace {

const QString kPublicOnly = QStringLiteral("public-only");
const QString kParagon = QStringLiteral("paragon");

// The private methods in the order the chart shows them: the method first, its ablations, then
// the DP-GD baselines it is compared with.
const QStringList kPrivateOrder = {QStringLiteral("adamix-r"),
                                   QStringLiteral("adamix-r-no-projection"),
                                   QStringLiteral("adamix-r-fixed-clip"),
                                   QStringLiteral("adamix-r-no-public-gradient"),
                                   QStringLiteral("dp-gd-warm-start"),
                                   QStringLiteral("dp-gd")};

int orderOf(const QString& method) {
    const auto i = kPrivateOrder.indexOf(method);
    return i < 0 ? static_cast<int>(kPrivateOrder.size()) : static_cast<int>(i);
}

// The chart's reading of engine/core/mean_std.h: NaN where there is nothing to show (no values;
// no spread from a single value), so the plot leaves a gap instead of drawing a zero.
MeanStd chartSpread(const std::vector<double>& v) {
    MeanStd m = meanStd(v);
    if (m.count == 0) m.mean = std::numeric_limits<double>::quiet_NaN();
    if (m.count < 2) m.std = std::numeric_limits<double>::quiet_NaN();
    return m;
}

QString number(double v, int precision = 3) { return QString::number(v, 'g', precision); }

QString percent(double fraction) { return QString::number(100.0 * fraction, 'f', 1) + QStringLiteral(" %"); }

bool atSetting(const AdamixCell& c, long long shots, long long perClass) {
    return c.shots == shots && c.perClass == perClass;
}

}  // namespace

std::vector<std::pair<long long, long long>> adamixSettings(const AdamixExperiment& experiment) {
    std::set<std::pair<long long, long long>> seen;
    for (const auto& c : experiment.cells) seen.insert({c.shots, c.perClass});
    return {seen.begin(), seen.end()};
}

QString adamixSettingLabel(long long shots, long long perClass) {
    const QString priv =
        perClass > 0 ? QObject::tr("%1 private per class").arg(perClass) : QObject::tr("all private examples");
    const QString shotText =
        shots == 1 ? QObject::tr("1 shot per class, ") : QObject::tr("%1 shots per class, ").arg(shots);
    return shotText + priv;
}

QString adamixMethodLabel(const QString& method) {
    static const std::map<QString, QString> labels = {
        {QStringLiteral("adamix-r"), QObject::tr("AdaMix-R")},
        {QStringLiteral("adamix-r-no-projection"), QObject::tr("AdaMix-R without projection")},
        {QStringLiteral("adamix-r-fixed-clip"), QObject::tr("AdaMix-R with a fixed clip")},
        {QStringLiteral("adamix-r-no-public-gradient"), QObject::tr("AdaMix-R without the public gradient")},
        {QStringLiteral("dp-gd-warm-start"), QObject::tr("DP-GD, warm start")},
        {QStringLiteral("dp-gd"), QObject::tr("DP-GD from zero")},
        {kPublicOnly, QObject::tr("Public only (few-shot)")},
        {kParagon, QObject::tr("Paragon (non-private)")},
    };
    const auto it = labels.find(method);
    return it == labels.end() ? method : it->second;
}

namespace {

// One method's bars: its error increase over the paragon per ε (mean ± std over seeds), with the
// test error in the tooltip; an ε it has no cell at goes to `missing`.
widgets::BarSeries increaseSeries(const AdamixExperiment& experiment, const QString& method,
                                  const std::set<double>& epsilons, long long shots, long long perClass,
                                  const widgets::TidyFields& setting, QStringList& missing) {
    widgets::BarSeries series;
    series.name = adamixMethodLabel(method);
    series.fields = widgets::withFields(
        setting,
        {{QStringLiteral("method"), method}, {QStringLiteral("metric"), QStringLiteral("error_increase_percent")}});
    bool anyStd = false;
    for (double eps : epsilons) {
        std::vector<double> increases, errors;
        for (const auto& c : experiment.cells)
            if (atSetting(c, shots, perClass) && c.method == method && c.epsilon == eps) {
                increases.push_back(c.errorIncrease);
                errors.push_back(c.testError);
            }
        const MeanStd inc = chartSpread(increases), err = chartSpread(errors);
        series.values << inc.mean;
        series.errors << (std::isnan(inc.std) ? 0.0 : inc.std);
        anyStd = anyStd || !std::isnan(inc.std);
        if (inc.count == 0) {
            missing << QStringLiteral("%1 at ε = %2").arg(series.name, number(eps));
            series.details << QString();
            continue;
        }
        QString detail = QObject::tr("test error %1").arg(percent(err.mean));
        if (!std::isnan(err.std)) detail += QStringLiteral(" ± ") + QString::number(100.0 * err.std, 'f', 1);
        detail += inc.count == 1 ? QObject::tr(" (1 seed)") : QObject::tr(" (%1 seeds)").arg(inc.count);
        series.details << detail;
    }
    if (!anyStd) series.errors.clear();
    return series;
}

}  // namespace

AdamixIncreaseChart adamixIncreaseChart(const AdamixExperiment& experiment, long long shots, long long perClass) {
    AdamixIncreaseChart chart;
    std::set<double> epsilons;
    std::set<QString> methods;
    std::vector<double> paragonErrors, publicIncrease, publicErrors;
    for (const auto& c : experiment.cells) {
        if (!atSetting(c, shots, perClass)) continue;
        if (c.method == kParagon) {
            paragonErrors.push_back(c.testError);
        } else if (c.method == kPublicOnly) {
            publicIncrease.push_back(c.errorIncrease);
            publicErrors.push_back(c.testError);
        } else if (std::isfinite(c.epsilon)) {
            epsilons.insert(c.epsilon);
            methods.insert(c.method);
        }
    }
    std::vector<QString> ordered(methods.begin(), methods.end());
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const QString& a, const QString& b) { return orderOf(a) < orderOf(b); });

    auto& data = chart.data;
    data.errorColumn = QStringLiteral("std");
    const widgets::TidyFields setting{
        {QStringLiteral("shots"), QString::number(shots)},
        {QStringLiteral("private_per_class"), perClass > 0 ? QString::number(perClass) : QStringLiteral("all")}};
    for (double eps : epsilons) {
        data.categories << QStringLiteral("ε = %1").arg(number(eps));
        data.categoryFields << widgets::TidyFields{{QStringLiteral("epsilon"), number(eps, 6)}};
    }
    QStringList missing;
    for (const QString& method : ordered) {
        data.series << increaseSeries(experiment, method, epsilons, shots, perClass, setting, missing);
    }
    if (!publicIncrease.empty()) {
        const MeanStd inc = chartSpread(publicIncrease);
        widgets::ReferenceLine line;
        line.name = QObject::tr("Public only (few-shot, no private data): %1 %").arg(QString::number(inc.mean, 'f', 0));
        line.value = inc.mean;
        line.fields =
            widgets::withFields(setting, {{QStringLiteral("method"), kPublicOnly},
                                          {QStringLiteral("metric"), QStringLiteral("error_increase_percent")}});
        data.references << line;
    }
    QStringList notes;
    if (!paragonErrors.empty())
        notes << QObject::tr(
                     "Error increase = (test error − paragon's) / paragon's, per seed. The paragon (non-private "
                     "head on all the data) has test error %1.")
                     .arg(percent(chartSpread(paragonErrors).mean));
    if (!publicErrors.empty())
        notes << QObject::tr("Public only: test error %1.").arg(percent(chartSpread(publicErrors).mean));
    if (!missing.isEmpty()) notes << QObject::tr("Not in this run: %1.").arg(missing.join(QStringLiteral(", ")));
    chart.note = notes.join(QLatin1Char(' '));
    return chart;
}

double quantileOf(std::vector<double> values, double q) {
    if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    const double at = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (at - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

AdamixHistogram adamixEpsilonHistogram(const AdamixEstimates& estimates, int bins) {
    AdamixHistogram out;
    bins = std::max(bins, 1);
    const double top = estimates.epsilon;
    std::vector<double> values;
    values.reserve(estimates.examples.size());
    for (const auto& e : estimates.examples) values.push_back(e.epsilon);

    std::vector<double> counts(static_cast<std::size_t>(bins), 0.0);
    double above = 0.0;
    const double width = top / bins;
    for (double v : values) {
        if (v > top * (1.0 + 1e-12)) {
            above += 1.0;
            continue;
        }
        const int b = width > 0.0 ? std::min(bins - 1, static_cast<int>(std::floor(std::max(v, 0.0) / width))) : 0;
        counts[static_cast<std::size_t>(b)] += 1.0;
    }
    widgets::BarSeries series;
    series.name = QObject::tr("private examples (ε_i: estimate)");
    series.fields = {{QStringLiteral("metric"), QStringLiteral("examples")}};
    for (int b = 0; b < bins; ++b) {
        const double lo = b * width, hi = (b + 1) * width;
        out.data.categories << QStringLiteral("%1–%2").arg(number(lo, 2), number(hi, 2));
        out.data.categoryFields << widgets::TidyFields{{QStringLiteral("epsilon_i_from"), number(lo, 6)},
                                                       {QStringLiteral("epsilon_i_to"), number(hi, 6)}};
        series.values << counts[static_cast<std::size_t>(b)];
    }
    if (above > 0.0) {  // impossible by construction; shown rather than hidden if it ever happens
        out.data.categories << QObject::tr("> ε");
        out.data.categoryFields << widgets::TidyFields{{QStringLiteral("epsilon_i_from"), number(top, 6)}};
        series.values << above;
    }
    out.data.series << series;

    QStringList notes;
    const std::size_t n = values.size();
    if (n == 0) {
        out.note = QObject::tr("This run stored no per-example estimates.");
        return out;
    }
    const double median = quantileOf(values, 0.5);
    const auto belowHalf = std::count_if(values.begin(), values.end(), [top](double v) { return v < 0.5 * top; });
    notes << QObject::tr(
                 "ε_i is an estimate measured on this run's realised trajectory, not a guarantee: the guarantee "
                 "for every example is the dataset-level ε = %1 (δ = %2).")
                 .arg(number(top), number(estimates.delta));
    notes << QObject::tr(
                 "Quantiles of ε_i over %1 examples: 10 % %2, median %3, 90 % %4, max %5; %6 % of them "
                 "below ε/2.")
                 .arg(n)
                 .arg(number(quantileOf(values, 0.1)), number(median), number(quantileOf(values, 0.9)),
                      number(quantileOf(values, 1.0)))
                 .arg(QString::number(100.0 * static_cast<double>(belowHalf) / static_cast<double>(n), 'f', 0));
    if (!std::isnan(estimates.spearmanIsolation))
        notes << QObject::tr(
                     "Rank correlation (Spearman) of ε_i with isolation (mean distance to the nearest same-class "
                     "examples): %1; with the training loss: %2.")
                     .arg(number(estimates.spearmanIsolation, 2), number(estimates.spearmanLoss, 2));
    if (above > 0.0)
        notes << QObject::tr("%1 example(s) above the dataset-level ε: the stored estimates are inconsistent.")
                     .arg(above);
    out.note = notes.join(QLatin1Char(' '));
    return out;
}

AdamixExtremes adamixExtremes(const AdamixEstimates& estimates, int count) {
    std::vector<AdamixExampleEstimate> sorted = estimates.examples;
    std::sort(sorted.begin(), sorted.end(), [](const AdamixExampleEstimate& a, const AdamixExampleEstimate& b) {
        return a.epsilon != b.epsilon ? a.epsilon > b.epsilon : a.sourceIndex < b.sourceIndex;
    });
    AdamixExtremes out;
    const std::size_t k = std::min(sorted.size(), static_cast<std::size_t>(std::max(count, 0)));
    out.highest.assign(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k));
    std::stable_sort(sorted.begin(), sorted.end(), [](const AdamixExampleEstimate& a, const AdamixExampleEstimate& b) {
        return a.epsilon != b.epsilon ? a.epsilon < b.epsilon : a.sourceIndex < b.sourceIndex;
    });
    out.lowest.assign(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k));
    return out;
}

}  // namespace dpmix::workbench
