// `dpmix inspect FILE.dpmix [--json]`: what a reviewer needs to read a project: the spec, the
// sources with their content hashes, every run with its results, its privacy ledger with the
// total ε recomputed here (privacy::Ledger::verify), and the integrity verdict: hash chain,
// seal, run history, ledgers against the spec, model files hashed, signatures.
// Exit status 1 when any of them does not verify.
#include "app/cli/command.h"
#include "app/cli/project_commands.h"
#include "app/cli/read_project_command.h"
#include "app/cli/terminal_safe.h"
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"
#include "engine/project/project_budget.h"
#include "engine/project/release_manifest.h"
#include "engine/project/trust_verdict.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <type_traits>

namespace dpmix::cli {
namespace {

using nlohmann::ordered_json;
using privacy::formatNumber;

ordered_json number(double v) {
    if (std::isinf(v)) return v > 0 ? ordered_json("inf") : ordered_json("-inf");
    if (std::isnan(v)) return ordered_json(nullptr);
    return ordered_json(v);
}

std::string eps(double v) { return std::isinf(v) ? "∞" : formatNumber(v); }

// Multi-line text this program generated (the budget's lines): printed as it is.
struct Raw {
    std::string text;
};

// The text output. A std::string inserted is a stored string (a name, a message, a path, a
// label) and is printed on one line with every control and bidirectional character escaped
// (oneLine): a study name holding a newline once printed a forged "Integrity hash chain ✓"
// line. String literals (the layout), numbers and Raw pass as they are.
class TextOut {
public:
    explicit TextOut(std::ostream& out) : out_(out) {}
    TextOut& operator<<(const std::string& s) {
        out_ << oneLine(s);
        return *this;
    }
    TextOut& operator<<(const char* s) {
        out_ << s;
        return *this;
    }
    TextOut& operator<<(const Raw& r) {
        out_ << r.text;
        return *this;
    }
    template <typename T>
    requires std::is_arithmetic_v<T> TextOut& operator<<(T v) {
        out_ << v;
        return *this;
    }

private:
    std::ostream& out_;
};

struct LedgerCheck {
    project::LedgerRecord record;
    bool parsed = false;
    privacy::Ledger ledger;
    privacy::LedgerVerification verification;
    std::string parseError;
    bool ok() const { return parsed && verification.ok; }
};

LedgerCheck checkLedger(const project::LedgerRecord& record) {
    LedgerCheck c;
    c.record = record;
    auto ledger = privacy::ledgerFromJson(record.ledgerJson);
    if (!ledger) {
        c.parseError = ledger.error().message;
        return c;
    }
    c.parsed = true;
    c.ledger = *ledger;
    c.verification = c.ledger.verify(std::isnan(record.recordedEpsilon) ? -1.0 : record.recordedEpsilon, 1e-6);
    return c;
}

struct RunView {
    project::RunRecord run;
    std::vector<LedgerCheck> ledgers;
    std::vector<project::LambdaRecord> lambdas;
    std::vector<project::MetricRecord> metrics;
    std::vector<std::pair<std::string, std::vector<project::CurvePoint>>> curves;
    std::vector<project::AuditRecord> audits;
    std::vector<project::LogRecord> logs;
    std::vector<project::ModelRecord> models;
};

struct ProjectView {
    std::vector<project::SourceRecord> sources;
    std::vector<RunView> runs;
    project::ChainVerification chain;
    bool allLedgersOk = true;
    // Seal, run history, ledgers against the spec, model files, signatures (integrity_report.h).
    project::IntegrityReport integrity;
    // The stored audits of fine-tuning mechanisms: the verdicts beside their ledger entries.
    std::vector<audit::StoredMechanismAudit> mechanismAudits;
};

// Reads everything once; an Error if the file cannot be read.
Result<ProjectView> readProject(const project::ProjectFile& p) {
    ProjectView view;
    auto sources = p.sources();
    if (!sources) return sources.error();
    view.sources = *sources;
    auto runs = p.runs();
    if (!runs) return runs.error();
    for (const auto& run : *runs) {
        RunView r;
        r.run = run;
        auto ledgers = p.ledgers(run.id);
        auto lambdas = p.lambdas(run.id);
        auto metrics = p.metrics(run.id);
        auto curveNames = p.curveNames(run.id);
        auto audits = p.audits(run.id);
        auto logs = p.logs(run.id);
        auto models = p.models(run.id);
        for (const Error* e :
             {ledgers ? nullptr : &ledgers.error(), lambdas ? nullptr : &lambdas.error(),
              metrics ? nullptr : &metrics.error(), curveNames ? nullptr : &curveNames.error(),
              audits ? nullptr : &audits.error(), logs ? nullptr : &logs.error(), models ? nullptr : &models.error()})
            if (e) return *e;
        for (const auto& l : *ledgers) {
            r.ledgers.push_back(checkLedger(l));
            view.allLedgersOk = view.allLedgersOk && r.ledgers.back().ok();
        }
        r.lambdas = *lambdas;
        r.metrics = *metrics;
        for (const auto& name : *curveNames) {
            auto points = p.curve(run.id, name);
            if (!points) return points.error();
            r.curves.emplace_back(name, *points);
        }
        r.audits = *audits;
        if (run.method == "audit")
            for (auto& a : audit_runs::mechanismAuditsOf(r.audits)) view.mechanismAudits.push_back(std::move(a));
        r.logs = *logs;
        r.models = *models;
        view.runs.push_back(std::move(r));
    }
    auto chain = p.verifyChain();
    if (!chain) return chain.error();
    view.chain = *chain;
    auto integrity = p.verifyIntegrity({/*hashModels=*/true});
    if (!integrity) return integrity.error();
    view.integrity = *integrity;
    return view;
}

std::string joinStrings(const std::vector<std::string>& items, const std::string& separator = ", ") {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : separator) + s;
    return out;
}

void printTasks(TextOut& out, const char* scope, const std::vector<project::LabelTask>& tasks) {
    out << "  " << scope << " (" << tasks.size() << ")";
    if (tasks.empty()) out << ": none";
    out << "\n";
    for (const auto& t : tasks)
        out << "    " << (t.source.empty() ? "" : t.source + " / ") << t.name << " = {" << joinStrings(t.classes)
            << "}\n";
}

// The file-level verdict: what sharing this file shares (docs/PRIVACY.md, "Trust boundary").
void printTrust(TextOut& out, const project::ProjectFile& p) {
    auto verdict = project::trustVerdict(p);
    out << "\nTrust boundary  " << (verdict ? verdict->headline() : "cannot tell: " + verdict.error().message) << "\n";
    if (!p.isRelease()) return;
    auto m = project::releaseManifestFromJson(p.releaseManifestJson());
    if (!m) return;
    out << "  a DP release (read-only), exported " << m->exportedAt << " by dpmix " << m->exportedBy << " from "
        << m->fromProject << ": runs";
    for (long long id : m->runs) out << " " << id;
    out << "; test metrics " << (m->includesTestMetrics ? "included (not covered by the guarantee)" : "not included")
        << "\n";
    for (const auto& c : m->unestablished)
        out << "  run " << c.runId << " released although its guarantee is not established: " << c.reason << "\n";
}

ordered_json trustJson(const project::ProjectFile& p, const ProjectView& view) {
    ordered_json t;
    if (auto v = project::trustVerdict(p)) {
        t = {{"verdict", v->dpOnly ? (v->release ? "dp-release" : "dp-releases-only") : "keep-inside"},
             {"headline", v->headline()},
             {"non_private", v->nonPrivate},
             {"includes_test_metrics", v->testMetrics},
             {"epsilon", number(v->epsilon)},
             {"delta", v->delta},
             {"unit", v->unit}};
    } else {
        t = {{"verdict", "unknown"}, {"error", v.error().message}};
    }
    if (p.isRelease()) t["release_manifest"] = ordered_json::parse(p.releaseManifestJson(), nullptr, false);
    // What the file holds, table by table (curve points and model files counted one by one).
    std::map<std::string, long long> rows{{"runs", 0},         {"ledgers", 0}, {"lambdas", 0}, {"metrics", 0},
                                          {"curve_points", 0}, {"audits", 0},  {"logs", 0},    {"models", 0}};
    for (const auto& r : view.runs) {
        ++rows["runs"];
        rows["ledgers"] += static_cast<long long>(r.ledgers.size());
        rows["lambdas"] += static_cast<long long>(r.lambdas.size());
        rows["metrics"] += static_cast<long long>(r.metrics.size());
        for (const auto& c : r.curves) rows["curve_points"] += static_cast<long long>(c.second.size());
        rows["audits"] += static_cast<long long>(r.audits.size());
        rows["logs"] += static_cast<long long>(r.logs.size());
        rows["models"] += static_cast<long long>(r.models.size());
    }
    t["contents"] = rows;
    return t;
}

void printSources(TextOut& out, const ProjectView& view) {
    out << "\nSources\n";
    for (const auto& src : view.sources) {
        const auto& f = src.facts;
        out << "  [" << project::nameOf(src.role) << "] " << src.name << "  loader " << src.loader << "  " << src.path
            << "\n";
        out << "      " << data::nameOf(f.kind) << ", " << f.examples << " examples";
        if (f.users > 0) out << ", " << f.users << " users";
        if (f.height > 0) out << ", " << f.channels << "x" << f.height << "x" << f.width;
        if (src.userLevel) out << ", user-level privacy";
        out << "\n";
        if (!f.labelNames.empty()) out << "      labels: " << joinStrings(f.labelNames) << "\n";
        if (!f.domains.empty()) out << "      domains: " << joinStrings(f.domains) << "\n";
        out << "      sha256 "
            << (f.contentHash.empty() ? "(withheld: a release never holds the sensitive data's hash)" : f.contentHash)
            << "\n";
    }
}

void printSpecSummary(TextOut& out, const project::ProjectSpec& s, const std::vector<project::SourceRecord>& sources) {
    out << "\nTasks (mixture components k = " << s.mixtureComponents(project::publicLabelCounts(sources)) << ")\n";
    printTasks(out, "public", s.publicTasks);
    printTasks(out, "sensitive", s.sensitiveTasks);

    std::vector<std::string> epsilons, seeds;
    for (double e : s.privacy.epsilons) epsilons.push_back(formatNumber(e));
    for (long long seed : s.seeds) seeds.push_back(std::to_string(seed));
    out << "\nPrivacy  ε ∈ {" << joinStrings(epsilons) << "}  δ = " << formatNumber(s.privacy.delta)
        << "  ρ = " << formatNumber(s.privacy.rho) << "  composition " << privacy::toString(s.privacy.composition)
        << "\n";
    out << "Stages   mixture: clip " << formatNumber(s.mixture.clip) << ", batch " << s.mixture.batch << ", lr "
        << formatNumber(s.mixture.lr) << ", steps " << s.mixture.steps;
    if (s.mixture.userGroupSize > 0) out << ", user group " << s.mixture.userGroupSize;
    if (s.finetune.adamix()) {  // docs/ADAMIX.md, "As a study's fine-tuning mechanism"
        out << "\n         finetune: adamix-r, " << s.finetune.publicShots << " shots per class from '"
            << s.finetune.shotsSource << "', T " << s.finetune.steps << ", η " << formatNumber(s.finetune.lr) << ", τ "
            << formatNumber(s.finetune.clipQuantile) << ", q " << formatNumber(s.finetune.adamixQ) << ", rank "
            << (s.finetune.rank ? std::to_string(*s.finetune.rank) : std::string("min(m, 64)"));
    } else {
        out << "\n         finetune: " << methods::nameOf(s.finetune.mechanism) << ", clip "
            << formatNumber(s.finetune.clip) << ", batch " << s.finetune.batch << ", lr " << formatNumber(s.finetune.lr)
            << ", steps " << s.finetune.steps;
        if (s.finetune.userGroupSize > 0) out << ", user group " << s.finetune.userGroupSize;
    }
    out << "\n         pretrain: batch " << s.pretrain.batch << ", lr " << formatNumber(s.pretrain.lr) << ", steps "
        << s.pretrain.steps << "\n";
    out << "Seeds    " << joinStrings(seeds) << "\n";
}

// One ledger record: recorded against recomputed ε, then each entry's mechanism and parameters.
void printLedger(TextOut& out, const LedgerCheck& l, const std::vector<audit::StoredMechanismAudit>& audits) {
    if (!l.parsed) {
        out << "      ledger ✗ unreadable: " << l.parseError << "\n";
        return;
    }
    const auto& t = l.verification.total;
    out << "      ledger: recorded ε = " << eps(l.record.recordedEpsilon) << ", recomputed ε = " << eps(t.epsilon)
        << " (δ = " << formatNumber(t.delta) << ", " << privacy::toString(t.composition) << ") "
        << (l.verification.ok ? "✓" : "✗") << (t.established ? "" : "  [rests on a claimed, unestablished guarantee]")
        << (t.seeded ? "  [NOT A RELEASE: seeded randomness, the seed is in this file]" : "") << "\n";
    if (t.seeded) out << "        " << privacy::kSeededRandomnessNotice << "\n";
    for (const auto& problem : l.verification.problems) out << "        ✗ " << problem << "\n";
    for (const auto& e : l.ledger.entries()) {
        out << "        " << e.stage << "  " << privacy::toString(e.mechanism) << "  split " << e.split << "  "
            << privacy::toString(e.unit) << "-level";
        if (e.mechanism == privacy::MechanismKind::SubsampledGaussian)
            out << "  q " << formatNumber(e.q) << "  σ " << formatNumber(e.sigma) << "  T " << e.steps
                << "  accountant " << privacy::toString(e.accounting);
        if (e.mechanism == privacy::MechanismKind::SubsampledDirichlet)
            out << "  q " << formatNumber(e.q) << "  α " << formatNumber(e.dirichletAlpha) << "  r "
                << formatNumber(e.dirichletR) << "  T " << e.steps;
        out << "  ε " << eps(e.epsilon);
        if (e.mechanism != privacy::MechanismKind::NonPrivate)
            out << "  randomness " << privacy::toString(e.randomness);
        if (e.spentInRun > 0) out << "  [run " << e.spentInRun << "'s release, reused here: counted there]";
        out << "\n";
        if (const auto v = audit::entryVerdict(e, audits))
            out << "          audit verdict: " << audit::describe(*v, e.epsilon) << "\n";
    }
}

void printRun(TextOut& out, const RunView& r, const std::vector<audit::StoredMechanismAudit>& audits) {
    const auto& run = r.run;
    out << "  #" << run.id << " " << run.method;
    if (!run.task.empty()) out << "  task " << run.task;
    out << "  ε " << (run.epsilon ? formatNumber(*run.epsilon) : std::string("none")) << "  seed " << run.seed << "  "
        << project::toString(run.status) << "  (dpmix " << run.buildVersion << ")\n";
    out << "      created " << run.createdAt;
    if (!run.startedAt.empty()) out << ", started " << run.startedAt;
    if (!run.finishedAt.empty()) out << ", finished " << run.finishedAt;
    out << "\n";
    if (!run.message.empty()) out << "      message: " << run.message << "\n";
    for (const auto& l : r.ledgers) printLedger(out, l, audits);
    for (const auto& l : r.lambdas) {
        out << "      λ " << l.kind << ":";
        for (std::size_t i = 0; i < l.values.size(); ++i)
            out << " " << (i < l.names.size() ? l.names[i] + "=" : "") << formatNumber(l.values[i]);
        out << "\n";
    }
    for (const auto& m : r.metrics)
        out << "      " << m.name << (m.className.empty() ? "" : " [" + m.className + "]") << " = "
            << formatNumber(m.value) << "\n";
    for (const auto& [name, points] : r.curves) {
        out << "      curve " << name << ": " << points.size() << " points";
        if (!points.empty()) out << ", last " << formatNumber(points.back().value) << " at step " << points.back().step;
        out << "\n";
    }
    for (const auto& a : r.audits)
        out << "      audit " << a.name << ": ε lower bound " << formatNumber(a.epsilonLowerBound) << " at "
            << formatNumber(a.confidence * 100) << "% (FP " << a.counts.falsePositives << "/" << a.counts.negatives
            << ", FN " << a.counts.falseNegatives << "/" << a.counts.positives << ", δ " << formatNumber(a.delta)
            << ")\n";
    for (const auto& m : r.models)
        out << "      model " << m.name << ": " << m.fileName << " (" << m.bytes << " bytes)\n";
    for (const auto& l : r.logs) out << "      log " << l.at << " " << l.level << ": " << l.message << "\n";
}

void printIntegrity(TextOut& out, const project::ProjectFile& p, const ProjectView& view) {
    const project::IntegrityReport& r = view.integrity;
    out << "\nIntegrity  ";
    if (view.chain.ok && !r.seal.ok)  // the rows that are there chain, but the last ones are gone or changed
        out << "hash chain ✗ incomplete: " << view.chain.rowsChecked << " rows verify, but the seal records others";
    else if (view.chain.ok && !(view.allLedgersOk && r.ok()))
        // The rows recompute, but something they hold does not: whoever edited the file also
        // recomputed the chain, so it vouches for nothing here (docs/PROJECT_FILE.md, "Tamper evidence").
        out << "hash chain recomputed (" << view.chain.rowsChecked << " rows), but ALTERED: see below";
    else if (view.chain.ok)
        out << "hash chain ✓ (" << view.chain.rowsChecked << " rows)";
    else
        out << "hash chain ✗ first mismatch: table " << view.chain.firstBreak->table << ", row id "
            << view.chain.firstBreak->rowId << " (stored " << view.chain.firstBreak->storedHash.substr(0, 12)
            << "…, expected " << view.chain.firstBreak->expectedHash.substr(0, 12) << "…)";
    out << ";  ledgers " << (view.allLedgersOk && r.ledgerProblems.empty() ? "✓" : "✗");
    if (r.seal.present)
        out << ";  seal " << (r.seal.ok ? "✓" : "✗") << ";  run history "
            << (r.transitions.problems.empty() ? "✓" : "✗");
    if (r.modelsChecked)
        out << ";  model files " << (r.modelProblems.empty() ? "✓" : "✗") << " (" << r.modelFiles << ")";
    out << "\n";
    for (const auto& problem : r.problems()) out << "  ✗ " << problem << "\n";
    for (const auto& notice : r.notices()) out << "  note: " << notice << "\n";
    for (const auto& line : r.signatureLines()) out << "Signature  " << line << "\n";
    if (auto budget = project::projectBudget(p))
        out << "\n" << Raw{project::describeBudget(*budget)};  // generated lines
    else
        out << "\nprivacy budget: " << budget.error().message << "\n";
}

void printText(TextOut& out, const project::ProjectFile& p, const ProjectView& view) {
    const project::ProjectSpec& s = p.spec();
    out << "Project " << s.name << "  (" << p.path().string() << ")\n";
    out << "  created " << p.createdAt() << " by dpmix " << p.createdBy() << "\n";
    if (!s.description.empty()) out << "  " << s.description << "\n";
    printTrust(out, p);
    printSources(out, view);
    printSpecSummary(out, s, view.sources);
    out << "\nRuns (" << view.runs.size() << ")\n";
    if (view.runs.empty()) out << "  none yet\n";
    for (const auto& r : view.runs) printRun(out, r, view.mechanismAudits);
    printIntegrity(out, p, view);
}

const char* toString(audit::ClaimStatus s) {
    switch (s) {
        case audit::ClaimStatus::Refuted: return "refuted";
        case audit::ClaimStatus::NotRefuted: return "not-refuted";
        case audit::ClaimStatus::NotAudited: return "not-audited";
    }
    return "?";
}

ordered_json ledgerJson(const LedgerCheck& l, const std::vector<audit::StoredMechanismAudit>& audits) {
    ordered_json lj{{"recorded_at", l.record.recordedAt}, {"recorded_epsilon", number(l.record.recordedEpsilon)}};
    if (l.parsed) {
        lj["recomputed"] = ordered_json::parse(privacy::ledgerTotalToJson(l.verification.total));
        lj["verified"] = l.verification.ok;
        lj["problems"] = l.verification.problems;
        lj["ledger"] = ordered_json::parse(l.record.ledgerJson);
        ordered_json verdicts = ordered_json::array();
        for (std::size_t i = 0; i < l.ledger.entries().size(); ++i) {
            const auto& e = l.ledger.entries()[i];
            if (const auto v = audit::entryVerdict(e, audits))
                verdicts.push_back(
                    {{"entry", i + 1},
                     {"mechanism", audit::auditedMechanismOf(e)},
                     {"status", toString(v->status)},
                     {"audits", v->audits},
                     {"best_epsilon_lb", v->strongest ? number(v->strongest->epsilonLB) : ordered_json(nullptr)},
                     {"audit_run", v->strongest ? ordered_json(v->strongest->runId) : ordered_json(nullptr)},
                     {"text", audit::describe(*v, e.epsilon)}});
        }
        lj["audit_verdicts"] = verdicts;
    } else {
        lj["verified"] = false;
        lj["problems"] = {l.parseError};
    }
    return lj;
}

ordered_json runJson(const RunView& r, const std::vector<audit::StoredMechanismAudit>& mechanismAudits) {
    ordered_json run{{"id", r.run.id},
                     {"method", r.run.method},
                     {"task", r.run.task},
                     {"epsilon", r.run.epsilon ? ordered_json(*r.run.epsilon) : ordered_json(nullptr)},
                     {"seed", r.run.seed},
                     {"status", project::toString(r.run.status)},
                     {"created_at", r.run.createdAt},
                     {"started_at", r.run.startedAt},
                     {"finished_at", r.run.finishedAt},
                     {"build_version", r.run.buildVersion},
                     {"message", r.run.message},
                     {"config", ordered_json::parse(r.run.configJson, nullptr, false)}};
    ordered_json ledgers = ordered_json::array();
    for (const auto& l : r.ledgers) ledgers.push_back(ledgerJson(l, mechanismAudits));
    run["ledgers"] = ledgers;
    ordered_json lambdas = ordered_json::array();
    for (const auto& l : r.lambdas) {
        ordered_json values = ordered_json::array();
        for (double v : l.values) values.push_back(number(v));
        lambdas.push_back({{"kind", l.kind}, {"names", l.names}, {"values", values}});
    }
    run["lambdas"] = lambdas;
    ordered_json metrics = ordered_json::array();
    for (const auto& m : r.metrics)
        metrics.push_back({{"name", m.name}, {"class", m.className}, {"value", number(m.value)}});
    run["metrics"] = metrics;
    ordered_json curves = ordered_json::object();
    for (const auto& [name, points] : r.curves) {
        ordered_json pts = ordered_json::array();
        for (const auto& pt : points) pts.push_back({pt.step, number(pt.value)});
        curves[name] = pts;
    }
    run["curves"] = curves;
    ordered_json audits = ordered_json::array();
    for (const auto& a : r.audits)
        audits.push_back({{"name", a.name},
                          {"false_positives", a.counts.falsePositives},
                          {"false_negatives", a.counts.falseNegatives},
                          {"negatives", a.counts.negatives},
                          {"positives", a.counts.positives},
                          {"delta", a.delta},
                          {"confidence", a.confidence},
                          {"epsilon_lower_bound", number(a.epsilonLowerBound)},
                          {"details", ordered_json::parse(a.detailsJson, nullptr, false)}});
    run["audits"] = audits;
    ordered_json models = ordered_json::array();
    for (const auto& m : r.models)
        models.push_back({{"name", m.name}, {"content_hash", m.contentHash}, {"file", m.fileName}, {"bytes", m.bytes}});
    run["models"] = models;
    ordered_json logs = ordered_json::array();
    for (const auto& l : r.logs) logs.push_back({{"at", l.at}, {"level", l.level}, {"message", l.message}});
    run["logs"] = logs;
    return run;
}

ordered_json toJson(const project::ProjectFile& p, const ProjectView& view) {
    ordered_json j;
    j["file"] = p.path().string();
    j["created_at"] = p.createdAt();
    j["created_by"] = p.createdBy();
    j["trust"] = trustJson(p, view);
    j["spec"] = ordered_json::parse(p.specJson());
    ordered_json sources = ordered_json::array();
    for (const auto& s : view.sources)
        sources.push_back({{"role", project::nameOf(s.role)},
                           {"name", s.name},
                           {"loader", s.loader},
                           {"path", s.path},
                           {"options", ordered_json::parse(s.optionsJson)},
                           {"user_level", s.userLevel},
                           {"kind", data::nameOf(s.facts.kind)},
                           {"examples", s.facts.examples},
                           {"users", s.facts.users},
                           {"label_names", s.facts.labelNames},
                           {"domains", s.facts.domains},
                           {"channels", s.facts.channels},
                           {"height", s.facts.height},
                           {"width", s.facts.width},
                           {"content_hash", s.facts.contentHash}});
    j["sources"] = sources;
    ordered_json runs = ordered_json::array();
    for (const auto& r : view.runs) runs.push_back(runJson(r, view.mechanismAudits));
    j["runs"] = runs;
    ordered_json integrity{
        {"hash_chain_ok", view.chain.ok}, {"rows_checked", view.chain.rowsChecked}, {"ledgers_ok", view.allLedgersOk}};
    if (view.chain.firstBreak)
        integrity["first_break"] = {{"table", view.chain.firstBreak->table},
                                    {"row_id", view.chain.firstBreak->rowId},
                                    {"stored_hash", view.chain.firstBreak->storedHash},
                                    {"expected_hash", view.chain.firstBreak->expectedHash}};
    const project::IntegrityReport& r = view.integrity;
    integrity["ok"] = r.ok() && view.allLedgersOk;
    integrity["seal_present"] = r.seal.present;
    integrity["seal_ok"] = r.seal.ok;
    integrity["problems"] = r.problems();
    integrity["notices"] = r.notices();
    integrity["model_files_checked"] = r.modelFiles;
    ordered_json signatures = ordered_json::array();
    for (const auto& sig : r.signatures)
        signatures.push_back({{"fingerprint", sig.signer.fingerprint()},
                              {"public_key", sig.signer.hex()},
                              {"signed_at", sig.signedAt},
                              {"valid", sig.valid},
                              {"covers_current_file", sig.current}});
    integrity["signatures"] = signatures;
    j["integrity"] = integrity;
    if (auto budget = project::projectBudget(p)) {
        j["budget"] = {
            {"epsilon", std::isinf(budget->total.epsilon) ? ordered_json("inf") : ordered_json(budget->total.epsilon)},
            {"delta", budget->total.delta},
            {"releases", budget->total.releases},
            {"unit", budget->unit},
            {"cap", budget->cap ? ordered_json(*budget->cap) : ordered_json(nullptr)},
            {"not_counted", budget->uncounted.size()}};
    }
    return j;
}

}  // namespace

void registerInspectCommand(CLI::App& app, CommandContext& ctx) {
    addReadProjectCommand(app, ctx,
                          {"inspect", "Show a project: spec, sources, runs, results, ledgers (ε recomputed), integrity",
                           "project file (.dpmix) or spec (.json)", "print one JSON object"},
                          [](const project::ProjectFile& project, bool json) {
                              auto view = readProject(project);
                              if (!view) {
                                  std::cerr << "dpmix inspect: " << view.error().message << '\n';
                                  return 1;
                              }
                              if (json) {
                                  std::cout << toJson(project, *view).dump(2) << '\n';
                              } else {
                                  TextOut text(std::cout);
                                  printText(text, project, *view);
                              }
                              return view->chain.ok && view->allLedgersOk && view->integrity.ok() ? 0 : 1;
                          });
}

}  // namespace dpmix::cli
