#include "app/workbench/project_snapshot.h"

#include "app/workbench/pinned_baseline.h"
#include "engine/project/project_file.h"
#include "engine/project/trust_verdict.h"

#include <cmath>
#include <limits>

namespace dpmix::workbench {

const project::LambdaRecord* RunResults::lambda(const std::string& kind) const {
    for (const auto& l : lambdas)
        if (l.kind == kind) return &l;
    return nullptr;
}

double RunResults::metric(const std::string& name) const {
    for (const auto& m : metrics)
        if (m.name == name && m.className.empty()) return m.value;
    return std::numeric_limits<double>::quiet_NaN();
}

std::vector<std::string> ProjectSnapshot::taskNames() const {
    std::vector<std::string> names;
    for (const auto& t : spec.sensitiveTasks) names.push_back(t.name);
    // Runs may name tasks the spec does not list (e.g. the single unnamed task).
    for (const auto& r : runs) {
        if (r.run.method == "proxy") continue;
        bool known = false;
        for (const auto& n : names) known = known || n == r.run.task;
        if (!known) names.push_back(r.run.task);
    }
    return names;
}

std::optional<long long> ProjectSnapshot::pinnedBaselineRunId() const {
    const auto id = workbench::pinnedBaselineRunId(path);
    if (!id || !findRun(*id)) return std::nullopt;  // a pin left over from another file at this path
    return id;
}

const RunResults* ProjectSnapshot::findRun(long long runId) const {
    for (const auto& r : runs)
        if (r.run.id == runId) return &r;
    return nullptr;
}

Result<ProjectSnapshot> loadProjectSnapshot(const QString& path) {
    auto file = project::ProjectFile::open(path.toStdString());
    if (!file) return file.error();
    ProjectSnapshot s;
    s.path = path;
    s.spec = file->spec();
    auto sources = file->sources();
    if (!sources) return sources.error();
    s.sources = *sources;
    auto runs = file->runs();
    if (!runs) return runs.error();
    for (const auto& run : *runs) {
        RunResults r;
        r.run = run;
        auto lambdas = file->lambdas(run.id);
        auto metrics = file->metrics(run.id);
        auto ledgers = file->ledgers(run.id);
        auto names = file->curveNames(run.id);
        auto audits = file->audits(run.id);
        if (!lambdas) return lambdas.error();
        if (!metrics) return metrics.error();
        if (!ledgers) return ledgers.error();
        if (!names) return names.error();
        if (!audits) return audits.error();
        r.lambdas = *lambdas;
        r.metrics = *metrics;
        r.ledgers = *ledgers;
        r.audits = *audits;
        for (const auto& name : *names) {
            auto points = file->curve(run.id, name);
            if (!points) return points.error();
            r.curves[name] = *points;
        }
        s.runs.push_back(std::move(r));
    }
    if (auto v = project::trustVerdict(*file)) {
        s.trust = {true, v->release, v->dpOnly, v->testMetrics, QString::fromStdString(v->headline()),
                   QString::fromStdString(v->shortLabel())};
    } else {
        s.trust.headline = QStringLiteral("trust verdict unavailable: %1").arg(QString::fromStdString(v.error().message));
        s.trust.shortLabel = QStringLiteral("trust verdict unavailable");
    }
    return s;
}

QString methodLabel(const std::string& method) {
    if (method == "dp-mixmin") return QStringLiteral("DP-MixMin");
    if (method == "non-private-mixmin") return QStringLiteral("Non-private MixMin (λ*)");
    if (method == "uniform") return QStringLiteral("Uniform");
    if (method == "random-search") return QStringLiteral("Random search");
    if (method == "proxy") return QStringLiteral("Proxy training");
    if (method == "random-init") return QStringLiteral("Random Init");
    return QString::fromStdString(method);
}

}  // namespace dpmix::workbench
