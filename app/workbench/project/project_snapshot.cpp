#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/project/read_only_files.h"

#include "app/workbench/project/pinned_baseline.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_file.h"
#include "engine/project/release_manifest.h"
#include "engine/project/trust_verdict.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <cstring>
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

namespace {

// The banner's sentence: what kind of non-private content the file holds (the runs are in the
// tooltip), or the guarantee of a DP-only file and where a release came from.
// What the file says about itself; an altered file says that first, whatever else it holds
// (engine/project/integrity_report.h: chain, seal, run history, ledgers, signatures).
QString contentSummary(const project::TrustVerdict& v, const project::ProjectFile& file) {
    if (!v.dpOnly) {
        QStringList kinds;
        for (const auto& k : v.nonPrivateKinds) kinds << QString::fromStdString(k);
        return QStringLiteral(
                   "It holds non-private results of the sensitive data: %1. Share only a release "
                   "(File ▸ Export release…). Hover for the runs.")
            .arg(kinds.join(QStringLiteral("; ")));
    }
    QString text = v.releases == 0 ? QStringLiteral("No DP release and nothing non-private.")
                                   : QStringLiteral("Only DP releases, at (ε, δ) = (%1, %2) per %3.")
                                         .arg(v.epsilon, 0, 'f', 3)
                                         .arg(v.delta, 0, 'g', 3)
                                         .arg(v.unit == "users" ? QStringLiteral("user") : QStringLiteral("example"));
    if (v.testMetrics)
        text += QStringLiteral(" Includes test metrics of the sensitive test split, NOT covered by the guarantee.");
    if (v.unestablished)
        text += QStringLiteral(" Includes a mechanism whose guarantee is only claimed by its authors.");
    if (auto m = project::releaseManifestFromJson(file.releaseManifestJson()); v.release && m)
        text += QStringLiteral(" Read-only; exported from %1 on %2.")
                    .arg(QString::fromStdString(m->fromProject), QString::fromStdString(m->exportedAt.substr(0, 10)));
    return text;
}

QString trustSummary(const project::TrustVerdict& v, const project::ProjectFile& file) {
    const QString content = contentSummary(v, file);
    if (v.integrityProblems.empty()) return content;
    return QStringLiteral("ALTERED outside dpmix: %1%2. Its figures cannot be trusted. %3")
        .arg(QString::fromStdString(v.integrityProblems.front()),
             v.integrityProblems.size() > 1
                 ? QStringLiteral(" (and %1 more; hover for all)").arg(v.integrityProblems.size() - 1)
                 : QString(),
             content);
}

}  // namespace

namespace {

// One run's stored results: λs, metrics, ledgers, audits, models, curves and, for a finished PSG
// run, its private set S.
Result<RunResults> readRunResults(const project::ProjectFile& file, const project::RunRecord& run) {
    RunResults r;
    r.run = run;
    auto lambdas = file.lambdas(run.id);
    auto metrics = file.metrics(run.id);
    auto ledgers = file.ledgers(run.id);
    auto names = file.curveNames(run.id);
    auto audits = file.audits(run.id);
    auto models = file.models(run.id);
    if (!lambdas) return lambdas.error();
    if (!metrics) return metrics.error();
    if (!ledgers) return ledgers.error();
    if (!names) return names.error();
    if (!audits) return audits.error();
    if (!models) return models.error();
    r.lambdas = *lambdas;
    r.metrics = *metrics;
    r.ledgers = *ledgers;
    r.audits = *audits;
    r.models = *models;
    for (const auto& name : *names) {
        auto points = file.curve(run.id, name);
        if (!points) return points.error();
        r.curves[name] = *points;
    }
    if (run.method == "psg" && run.status == project::RunStatus::Done) {
        // S is small (classes × spc images): read with the results. Checked against its
        // content hash by loadModel; a missing or damaged file leaves it empty (the view says so).
        for (const auto& m : r.models)
            if (m.name == "private-set")
                if (auto bytes = file.loadModel(m); bytes && bytes->size() % sizeof(float) == 0) {
                    r.privateSet.resize(bytes->size() / sizeof(float));
                    std::memcpy(r.privateSet.data(), bytes->data(), bytes->size());
                }
    }
    return r;
}

// A finished AdaMix-R experiment as stored, or why it cannot be read.
AdamixReading readAdamixReading(const project::ProjectFile& file, const project::RunRecord& run) {
    AdamixReading reading{run.id, std::nullopt, {}};
    if (auto stored = experiments::readAdamixExperiment(file, run.id, false))
        reading.experiment = std::move(stored).value();
    else
        reading.error = QString::fromStdString(stored.error().message);
    return reading;
}

// The file's trust verdict for the banner and its tooltip: who signed it, what an older file cannot
// show, and what the stored audits say of the claims its releases rest on.
void readTrust(const project::ProjectFile& file, ProjectSnapshot& s) {
    if (auto v = project::trustVerdict(file)) {
        s.trust = {true,
                   v->release,
                   v->dpOnly,
                   v->testMetrics,
                   QString::fromStdString(v->headline()),
                   {},
                   QString::fromStdString(v->shortLabel())};
        s.trust.summary = trustSummary(*v, file);
        // Who signed it and whether it verifies, and what an older file cannot show (integrity_report.h).
        for (const auto& line : v->signatures)
            s.trust.summary += QStringLiteral(" Signature: %1.").arg(QString::fromStdString(line));
        for (const auto& note : v->integrityNotices)
            s.trust.summary += QStringLiteral(" Note: %1.").arg(QString::fromStdString(note));
        // What the stored audits say of the claims its releases rest on (docs/AUDIT.md, "Verdicts").
        std::vector<privacy::LedgerEntry> entries;
        for (const auto& r : s.runs)
            if (r.run.method != "audit")
                for (const auto& record : r.ledgers)
                    if (auto ledger = privacy::ledgerFromJson(record.ledgerJson))
                        entries.insert(entries.end(), ledger->entries().begin(), ledger->entries().end());
        for (const auto& line : audit::claimVerdictLines(entries, mechanismAudits(s)))
            s.trust.summary += QStringLiteral(" Audit verdict: %1.").arg(QString::fromStdString(line));
    } else {
        s.trust.headline =
            QStringLiteral("trust verdict unavailable: %1").arg(QString::fromStdString(v.error().message));
        s.trust.shortLabel = QStringLiteral("trust verdict unavailable");
    }
}

}  // namespace

Result<ProjectSnapshot> loadProjectSnapshot(const QString& path) {
    auto file = project::ProjectFile::open(path.toStdString(), openModeFor(path));
    if (!file) return file.error();
    ProjectSnapshot s;
    s.path = path;
    s.spec = file->spec();
    auto sources = file->sources();
    if (!sources) return sources.error();
    s.sources = *sources;
    if (auto store = project::readStoreView(*file))
        s.budgetStore = std::move(store).value();
    else
        s.budgetStoreError = QString::fromStdString(store.error().message);
    auto settings = file->workingSettings();
    if (!settings) return settings.error();
    if (*settings) s.workingSettingsJson = QString::fromStdString(**settings);
    auto runs = file->runs();
    if (!runs) return runs.error();
    for (const auto& run : *runs) {
        auto r = readRunResults(*file, run);
        if (!r) return r.error();
        if (run.method == experiments::kAdamixExperimentMethod && run.status == project::RunStatus::Done)
            s.adamix.push_back(readAdamixReading(*file, run));
        s.runs.push_back(std::move(r).value());
    }
    readTrust(*file, s);
    return s;
}

QString methodLabel(const std::string& method) {
    if (auto m = methods::methodOfRun(method)) return QString::fromUtf8(methods::traitsOf(*m).label);
    if (method == "proxy") return QStringLiteral("Proxy training");
    return QString::fromStdString(method);
}

bool isMethod(const project::RunRecord& run, methods::Method m) { return methods::methodOfRun(run.method) == m; }

bool isSeededRun(const RunResults& run) {
    if (run.ledgers.empty()) return false;
    const auto ledger = privacy::ledgerFromJson(run.ledgers.back().ledgerJson);
    return ledger && ledger->total().seeded;
}

std::vector<audit::StoredMechanismAudit> mechanismAudits(const ProjectSnapshot& project) {
    std::vector<audit::StoredMechanismAudit> out;
    for (const auto& r : project.runs)
        for (const auto& a : r.audits)
            if (auto m = audit::mechanismAuditFrom(a.runId, a.name, a.detailsJson, a.counts, a.delta, a.confidence))
                out.push_back(std::move(*m));
    return out;
}

std::vector<project::ResultObservation> storedResultsOf(const ProjectSnapshot& project, const std::string& metric) {
    std::vector<project::ResultObservation> out;
    for (const auto& r : project.runs) {
        if (!r.done() || !r.run.epsilon) continue;
        const auto found = std::find_if(r.metrics.begin(), r.metrics.end(), [&](const project::MetricRecord& m) {
            return m.name == metric && (m.className.empty() || m.className == r.run.task);
        });
        if (found != r.metrics.end())
            out.push_back({r.run.method, r.run.task, r.run.seed, *r.run.epsilon, found->value, r.run.id});
    }
    return out;
}

}  // namespace dpmix::workbench
