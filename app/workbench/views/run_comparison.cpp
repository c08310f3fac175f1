#include "app/workbench/views/run_comparison.h"

#include "app/workbench/views/result_data.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dpmix::workbench {

namespace {
const QString kMissing = QStringLiteral("—");

QString jsonText(const QJsonValue& v) {
    if (v.isDouble()) return QString::number(v.toDouble(), 'g', 10);
    if (v.isString()) return v.toString();
    if (v.isBool()) return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isNull()) return QStringLiteral("null");
    if (v.isArray()) return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isObject()) return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    return kMissing;
}

QString metricName(const project::MetricRecord& m) {
    const QString name = QString::fromStdString(m.name);
    return m.className.empty() ? name : QStringLiteral("%1 (class %2)").arg(name, QString::fromStdString(m.className));
}
}  // namespace

QStringList RunComparison::differingKeys() const {
    QStringList keys;
    for (const auto& p : parameters)
        if (p.differs) keys << p.key;
    return keys;
}

Result<RunComparison> compareRuns(const ProjectSnapshot& project, std::vector<long long> runIds) {
    if (runIds.size() < 2) return Error{"Run comparison: select two runs or more in the project tree."};
    std::vector<const RunResults*> runs;
    for (long long id : runIds) {
        const RunResults* r = project.findRun(id);
        if (!r) return Error{"Run comparison: the project has no run " + std::to_string(id)};
        runs.push_back(r);
    }
    RunComparison c;
    if (const auto pinned = project.pinnedBaselineRunId()) {
        const auto it = std::find(runIds.begin(), runIds.end(), *pinned);
        if (it != runIds.end()) {
            const auto index = it - runIds.begin();
            std::rotate(runs.begin(), runs.begin() + index, runs.begin() + index + 1);
            c.baseline = *pinned;
        }
    }
    for (const RunResults* r : runs) {
        c.runIds.push_back(r->run.id);
        c.runLabels << runLabel(r->run);  // "#id method · task · ε · seed"
    }

    // Fixed identity keys first, then the union of the configuration keys in first-seen order.
    std::vector<std::pair<QString, std::vector<QString>>> rows;
    auto row = [&](const QString& key) -> std::vector<QString>& {
        for (auto& r : rows)
            if (r.first == key) return r.second;
        rows.push_back({key, std::vector<QString>(runs.size(), kMissing)});
        return rows.back().second;
    };
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i]->run;
        row("method")[i] = QString::fromStdString(run.method);
        row("task")[i] = QString::fromStdString(run.task);
        if (methods::isNonPrivateChoice(run.method))
            row("epsilon")[i] = QStringLiteral("∞, non-private baseline");  // whatever its fine-tuning spent
        else
            row("epsilon")[i] =
                run.epsilon ? QString::number(*run.epsilon, 'g', 10) : QStringLiteral("none (not private)");
        row("seed")[i] = QString::number(run.seed);
        row("status")[i] = QString::fromStdString(project::toString(run.status));
        row("build")[i] = QString::fromStdString(run.buildVersion);
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(runs[i]->run.configJson));
        const QJsonObject config = doc.object();
        for (auto it = config.begin(); it != config.end(); ++it)
            row(QStringLiteral("config.") + it.key())[i] = jsonText(it.value());
    }
    for (auto& [key, values] : rows) {
        ComparedParameter p;
        p.key = key;
        for (const auto& v : values) p.values << v;
        p.differs = std::any_of(values.begin(), values.end(), [&](const QString& v) { return v != values.front(); });
        c.parameters.push_back(std::move(p));
    }

    for (std::size_t i = 0; i < runs.size(); ++i)
        for (const auto& m : runs[i]->metrics) {
            const QString name = metricName(m);
            auto it = std::find_if(c.metrics.begin(), c.metrics.end(),
                                   [&](const ComparedMetric& cm) { return cm.name == name; });
            if (it == c.metrics.end()) {
                c.metrics.push_back({name, std::vector<double>(runs.size(), std::numeric_limits<double>::quiet_NaN())});
                it = c.metrics.end() - 1;
            }
            if (std::isnan(it->values[i])) it->values[i] = m.value;  // the first record of a name wins
        }

    for (const RunResults* r : runs)
        for (const auto& [name, points] : r->curves)
            if (!c.curveNames.contains(QString::fromStdString(name))) c.curveNames << QString::fromStdString(name);
    c.curveNames.sort();
    return c;
}

}  // namespace dpmix::workbench
