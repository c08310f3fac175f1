#include "app/workbench/views/result_data.h"

#include "app/workbench/views/tidy_fields.h"
#include "engine/core/mean_std.h"
#include "engine/methods/method_plan.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <set>

namespace dpmix::workbench {
namespace {

bool sameEpsilon(const std::optional<double>& a, double b) { return a && std::abs(*a - b) <= 1e-12 * std::max(1.0, b); }

QString number(double v) { return QString::number(v, 'g', 3); }

struct Collected {
    std::vector<std::vector<double>> vectors;  // one λ per seed
    std::vector<double> cosines, l1s;
};

// A bar of the λ chart: the sum of λ over `components` (one component, or a source's total).
struct LambdaColumn {
    QString label;   // the tick label: short, since 20-odd categories share the axis
    QString detail;  // the tooltip: the full component name, or what the total sums
    std::vector<std::size_t> components;
    widgets::TidyFields fields;  // the CSV's: component, and source when there are several
};

// One bar per component; with several public sources (names "source / task", contiguous per
// source) each source's components are followed by the source's total, "Σ source".
std::vector<LambdaColumn> lambdaColumns(const std::vector<std::string>& names, bool severalSources) {
    std::vector<LambdaColumn> columns;
    std::string group;
    std::vector<std::size_t> members;
    auto closeGroup = [&] {
        if (!members.empty())
            columns.push_back({QStringLiteral("Σ ") + QString::fromStdString(group),
                               QObject::tr("total λ of source %1's components").arg(QString::fromStdString(group)),
                               members,
                               {{QStringLiteral("source"), QString::fromStdString(group)},
                                {QStringLiteral("component"), QStringLiteral("total")}}});
        members.clear();
    };
    for (std::size_t j = 0; j < names.size(); ++j) {
        const QString full = QString::fromStdString(names[j]);
        if (!severalSources) {
            columns.push_back({full, full, {j}, {{QStringLiteral("component"), full}}});
            continue;
        }
        // "source / task": the group and its total say the source, the tick says the task.
        const auto cut = names[j].find(" / ");
        const std::string source = names[j].substr(0, cut);
        if (source != group) closeGroup();  // the previous source's total follows its components
        group = source;
        members.push_back(j);
        const QString task = QString::fromStdString(names[j].substr(cut + 3));
        columns.push_back(
            {task,
             full,
             {j},
             {{QStringLiteral("source"), QString::fromStdString(source)}, {QStringLiteral("component"), task}}});
    }
    if (severalSources) closeGroup();
    return columns;
}

}  // namespace

std::pair<double, double> meanAndStd(const std::vector<double>& values) {
    if (values.empty()) return {std::nan(""), 0.0};  // a chart's gap, not a zero bar
    const MeanStd m = meanStd(values);
    return {m.mean, m.std};
}

QString LambdaSelection::label() const {
    const QString name = task.empty() ? QObject::tr("(single task)") : QString::fromStdString(task);
    return QObject::tr("%1 — ε = %2").arg(name, number(epsilon));
}

std::vector<LambdaSelection> lambdaSelections(const ProjectSnapshot& project) {
    std::vector<LambdaSelection> out;
    for (const std::string& task : project.taskNames()) {
        std::set<double> epsilons;
        for (const auto& r : project.runs)
            if (r.done() && isMethod(r.run, methods::Method::DpMixMin) && r.run.task == task && r.run.epsilon &&
                r.lambda(std::string(methods::traitsOf(methods::Method::DpMixMin).lambdaKind)))
                epsilons.insert(*r.run.epsilon);
        for (double e : epsilons) out.push_back({task, e});
    }
    return out;
}

namespace {

// A method whose λ the chart shows, in the chart's order.
struct LambdaMethod {
    std::string method, kind;
    QString name;
    bool atEpsilon;
    int rank;
    methods::Choice choice;
};

// The private λ first, then the reference λ*, then the others in the table's order.
std::vector<LambdaMethod> lambdaMethods() {
    std::vector<LambdaMethod> shown;
    for (const auto& t : methods::allMethods())
        if (!t.lambdaKind.empty())
            shown.push_back({std::string(t.name), std::string(t.lambdaKind),
                             QCoreApplication::translate("methods", std::string(t.lambdaLabel).c_str()),
                             t.choice == methods::Choice::Private,
                             t.choice == methods::Choice::Private ? 0
                             : t.reference                        ? 1
                                                                  : 2,
                             t.choice});
    std::stable_sort(shown.begin(), shown.end(),
                     [](const LambdaMethod& a, const LambdaMethod& b) { return a.rank < b.rank; });
    return shown;
}

// One bar series' runs: a method's, or of the private λ the release's or the seeded runs'.
struct LambdaGroup {
    const LambdaMethod* method;
    QString suffix;  // the private λ: which of a release and seeded runs the bar averages
    Collected runs;
};

// The runs behind each series at `selection`; `names` becomes the components of the first λ.
std::vector<LambdaGroup> lambdaGroups(const ProjectSnapshot& project, const LambdaSelection& selection,
                                      const std::vector<LambdaMethod>& shown, std::vector<std::string>& names) {
    std::vector<LambdaGroup> collected;
    for (const LambdaMethod& m : shown) {
        Collected c, seeded;  // seeded: DP-MixMin's reproducible runs, never averaged with a release
        for (const auto& r : project.runs) {
            if (!r.done() || r.run.method != m.method || r.run.task != selection.task) continue;
            if (m.atEpsilon && !sameEpsilon(r.run.epsilon, selection.epsilon)) continue;
            const project::LambdaRecord* l = r.lambda(m.kind);
            if (!l) continue;
            if (names.empty()) names = l->names;
            if (l->names != names) continue;  // a run over other components cannot share the bars
            Collected& into = m.atEpsilon && isSeededRun(r) ? seeded : c;
            into.vectors.push_back(l->values);
            if (double cos = r.metric("cosine-to-lambda-star"); !std::isnan(cos)) into.cosines.push_back(cos);
            if (double l1 = r.metric("l1-to-lambda-star"); !std::isnan(l1)) into.l1s.push_back(l1);
        }
        // A DP release and seeded runs (reproducible, so no release) are different things: with
        // both at this ε they are two bars, so the release's λ is never blurred into the others.
        const bool both = !c.vectors.empty() && !seeded.vectors.empty();
        if (!c.vectors.empty()) collected.push_back({&m, both ? QObject::tr(" — release") : QString(), std::move(c)});
        if (!seeded.vectors.empty())
            collected.push_back({&m, both ? QObject::tr(" — seeded, not a release") : QString(), std::move(seeded)});
    }
    return collected;
}

}  // namespace

widgets::BarChartData lambdaChartData(const ProjectSnapshot& project, const LambdaSelection& selection) {
    std::vector<std::string> names;
    const std::vector<LambdaMethod> shown = lambdaMethods();
    const std::vector<LambdaGroup> collected = lambdaGroups(project, selection, shown, names);
    // Image components of several sources are named "source / task"; a text study's are domains.
    const bool severalSources = project.spec.publicSources.size() > 1 && !names.empty() &&
                                std::all_of(names.begin(), names.end(),
                                            [](const std::string& n) { return n.find(" / ") != std::string::npos; });
    const std::vector<LambdaColumn> columns = lambdaColumns(names, severalSources);
    widgets::BarChartData data;
    for (const auto& [m, suffix, c] : collected) {
        widgets::BarSeries series;
        series.name = m->name + suffix;
        if (!c.cosines.empty())
            series.name += QObject::tr(" · cos %1, L1 %2")
                               .arg(number(meanAndStd(c.cosines).first), number(meanAndStd(c.l1s).first));
        // Runs, not seeds: a project run twice holds two runs of the same seed.
        if (c.vectors.size() > 1) series.name += QObject::tr(" (%1 runs)").arg(c.vectors.size());
        series.fields = {{QStringLiteral("task"), taskCell(selection.task)},
                         {QStringLiteral("epsilon"), lambdaEpsilonCell(m->choice, selection.epsilon)},
                         {QStringLiteral("method"), QString::fromStdString(m->method)},
                         {QStringLiteral("metric"), QStringLiteral("lambda")},
                         {QStringLiteral("runs"), QString::number(c.vectors.size())}};
        if (!suffix.isEmpty())
            series.fields.append({QStringLiteral("randomness"), suffix.contains(QStringLiteral("seeded"))
                                                                    ? QStringLiteral("seeded")
                                                                    : QStringLiteral("secret")});
        for (const LambdaColumn& column : columns) {
            std::vector<double> sums;
            for (const auto& v : c.vectors) {
                double sum = 0.0;
                for (std::size_t j : column.components) sum += v[j];
                sums.push_back(sum);
            }
            const auto [mean, sd] = meanAndStd(sums);
            series.values << mean;
            if (c.vectors.size() > 1) series.errors << sd;
            if (severalSources) series.details << column.detail;
        }
        data.series << series;
    }
    for (const auto& column : columns) {
        data.categories << column.label;
        data.categoryFields << column.fields;
    }
    data.errorColumn = QStringLiteral("std");
    return data;
}

QString runLabel(const project::RunRecord& run) {
    QString text = QStringLiteral("#%1 %2").arg(run.id).arg(methodLabel(run.method));
    if (!run.task.empty()) text += QStringLiteral(" · ") + QString::fromStdString(run.task);
    if (methods::isNonPrivateChoice(run.method)) {
        // Its λ was chosen on sensitive data without DP: the run as a whole has no finite ε,
        // whatever its fine-tuning spent (that ε is in its ledger).
        text += QObject::tr(" · ε = ∞, non-private baseline");
    } else if (run.epsilon) {
        text += QStringLiteral(" · ε = ") + number(*run.epsilon);
    }
    if (run.method != "proxy") text += QObject::tr(" · seed %1").arg(run.seed);
    return text;
}

QString honestMethodLabel(const std::string& method) {
    if (methods::isNonPrivateChoice(method)) return methodLabel(method) + QObject::tr(", ε = ∞");
    return methodLabel(method);
}

std::vector<const RunResults*> trajectoryRuns(const ProjectSnapshot& project) {
    std::vector<const RunResults*> out;
    for (const auto& r : project.runs) {
        if (!isMethod(r.run, methods::Method::DpMixMin)) continue;
        for (const auto& [name, points] : r.curves)
            if (name.rfind("lambda/", 0) == 0 && !points.empty()) {
                out.push_back(&r);
                break;
            }
    }
    return out;
}

QList<widgets::LineSeries> trajectorySeries(const RunResults& run) {
    // Components in the order of the run's λ record, so colours match the λ view's categories.
    std::vector<std::string> order;
    if (const auto* l = run.lambda("private")) order = l->names;
    for (const auto& [name, points] : run.curves)
        if (name.rfind("lambda/", 0) == 0 && std::find(order.begin(), order.end(), name.substr(7)) == order.end())
            order.push_back(name.substr(7));
    QList<widgets::LineSeries> out;
    for (const auto& component : order) {
        auto it = run.curves.find("lambda/" + component);
        if (it == run.curves.end()) continue;
        widgets::LineSeries s;
        s.name = QString::fromStdString(component);
        s.fields = runFields(run.run);
        s.fields << widgets::TidyFields{{QStringLiteral("component"), s.name},
                                        {QStringLiteral("metric"), QStringLiteral("lambda")}};
        for (const auto& p : it->second) {
            s.x << static_cast<double>(p.step);
            s.mean << p.value;
        }
        out << s;
    }
    return out;
}

std::vector<double> runEpsilons(const ProjectSnapshot& project) {
    std::set<double> e;
    for (const auto& r : project.runs)
        if (r.done() && isMethod(r.run, methods::Method::DpMixMin) && r.run.epsilon) e.insert(*r.run.epsilon);
    return {e.begin(), e.end()};
}

QList<widgets::LineSeries> tradeoffSeries(const ProjectSnapshot& project, const std::optional<std::string>& task) {
    const std::vector<double> epsilons = runEpsilons(project);
    if (epsilons.empty()) return {};
    auto cosines = [&](const std::string& method, std::optional<double> epsilon) {
        std::vector<double> out;
        for (const auto& r : project.runs) {
            if (!r.done() || r.run.method != method || (task && r.run.task != *task)) continue;
            if (epsilon && !sameEpsilon(r.run.epsilon, *epsilon)) continue;
            if (double c = r.metric("cosine-to-lambda-star"); !std::isnan(c)) out.push_back(c);
        }
        return out;
    };
    auto addPoint = [](widgets::LineSeries& s, double x, const std::vector<double>& values) {
        const auto [mean, sd] = meanAndStd(values);
        s.x << x;
        s.mean << mean;
        // A cosine similarity lies in [-1, 1]: the ± std band is cut there.
        s.lower << std::max(-1.0, mean - sd);
        s.upper << std::min(1.0, mean + sd);
    };
    QList<widgets::LineSeries> out;
    const widgets::TidyFields common{{QStringLiteral("task"), task ? taskCell(*task) : QStringLiteral("all")},
                                     {QStringLiteral("metric"), QStringLiteral("cosine_to_lambda_star")}};
    widgets::LineSeries dp{QObject::tr("DP-MixMin"), {}, {}, {}, {}, {}};
    dp.fields = widgets::withFields(
        common, {{QStringLiteral("method"), QString::fromStdString(methods::nameOf(methods::Method::DpMixMin))}});
    for (double e : epsilons)
        if (auto v = cosines(methods::nameOf(methods::Method::DpMixMin), e); !v.empty()) addPoint(dp, e, v);
    if (!dp.x.isEmpty()) out << dp;
    // The other λ's with a distance to λ* (not the reference itself), in the paper's order.
    std::vector<const methods::MethodTraits*> others;
    for (const auto& t : methods::allMethods())
        if (!t.lambdaKind.empty() && !t.reference && t.choice != methods::Choice::Private) others.push_back(&t);
    std::stable_sort(others.begin(), others.end(), [](const auto* a, const auto* b) {
        return methods::paperRank(a->method) < methods::paperRank(b->method);
    });
    for (const auto* t : others) {
        const std::string method(t->name);
        QString name = QCoreApplication::translate("methods", std::string(t->lambdaLabel).c_str());
        if (t->choice == methods::Choice::NonPrivate) name += QObject::tr(" (not private)");
        const auto v = cosines(method, std::nullopt);
        if (v.empty()) continue;
        widgets::LineSeries s{name, {}, {}, {}, {}, {}};
        // Drawn flat across the ε axis, but it has one ε of its own: one row, its true ε.
        s.fields = widgets::withFields(common, {{QStringLiteral("method"), QString::fromStdString(method)},
                                                {QStringLiteral("epsilon"), lambdaEpsilonCell(t->choice, 0.0)}});
        addPoint(s, epsilons.front(), v);
        if (epsilons.size() > 1) addPoint(s, epsilons.back(), v);
        s.reference = true;  // a dashed line, not a band over DP-MixMin's
        out << s;
    }
    return out;
}

}  // namespace dpmix::workbench
