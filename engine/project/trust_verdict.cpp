#include "engine/project/trust_verdict.h"

#include "engine/methods/method_plan.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"
#include "engine/project/project_budget.h"
#include "engine/project/release_manifest.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace dpmix::project {
namespace {

const std::set<std::string> kTestMetrics = {"test-auc", "pretrained-test-auc", "macro-auc", "test-perplexity",
                                            "pretrained-test-perplexity",
                                            // PSG: networks trained on S (or a reference) scored on the test split
                                            "accuracy-convnet", "accuracy-mlp", "accuracy-noise-convnet"};
// Figures a DP run reports that are set by public parameters and the ledger (σ is calibrated
// from ε, δ, q and T; q from the split sizes the ledger treats as public).
const std::set<std::string> kDpFigures = {"sigma", "epsilon-spent", "finetune-noise"};
// Figures of public data only (the collapse check: the pretrained model, a function of the run's
// stored λ, on public images).
const std::set<std::string> kPublicFigures = {"public-validation-auc", "vocabulary-size", "pretraining-collapsed"};
const std::set<std::string> kDiagnosticMethods = {"audit", "epsilon-sweep", "rho-sweep", "k-scaling",
                                                  "adamix-experiment"};

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string fixed(double v, int digits) {
    if (std::isinf(v)) return "inf";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
    return buffer;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : separator) + i;
    return out;
}

// The phrases of the verdict, in a fixed order; each collects the runs it was found in and
// the names of what was found ("statistics no ledger covers: cosine-to-lambda-star, ...").
class Findings {
public:
    void add(int order, const std::string& phrase, long long runId = 0, const std::string& detail = "") {
        auto& f = found_[{order, phrase}];
        if (runId > 0) f.runs.insert(runId);
        if (!detail.empty()) f.details.insert(detail);
    }
    std::vector<std::string> phrases() const {
        std::vector<std::string> out;
        for (const auto& [key, f] : found_) {
            std::string text = key.second;
            if (!f.details.empty()) text += ": " + join({f.details.begin(), f.details.end()}, ", ");
            if (!f.runs.empty()) {
                std::vector<std::string> ids;
                for (long long id : f.runs) ids.push_back(std::to_string(id));
                if (ids.size() > 6) ids = {ids[0], ids[1], ids[2], "...", ids.back()};
                text += " (run" + std::string(f.runs.size() > 1 ? "s " : " ") + join(ids, ", ") + ")";
            }
            out.push_back(text);
        }
        return out;
    }
    std::vector<std::string> kinds() const {
        std::vector<std::string> out;
        for (const auto& [key, f] : found_) out.push_back(key.second);
        return out;
    }
    bool empty() const { return found_.empty(); }

private:
    struct Found {
        std::set<long long> runs;
        std::set<std::string> details;
    };
    std::map<std::pair<int, std::string>, Found> found_;
};

}  // namespace

Disclosure classifyLambda(const std::string& kind) {
    const auto method = methods::methodOfLambdaKind(kind);
    if (!method) return Disclosure::NonPrivate;  // a kind no method stores: nothing vouches for it
    switch (methods::traitsOf(*method).choice) {
        case methods::Choice::Private: return Disclosure::DpRelease;
        case methods::Choice::Public: return Disclosure::Public;
        case methods::Choice::NonPrivate:
        case methods::Choice::None: return Disclosure::NonPrivate;
    }
    return Disclosure::NonPrivate;
}

Disclosure classifyMetric(const std::string& name) {
    if (kDpFigures.count(name)) return Disclosure::DpRelease;
    if (kPublicFigures.count(name)) return Disclosure::Public;
    if (kTestMetrics.count(name)) return Disclosure::TestMetric;
    return Disclosure::NonPrivate;  // distances to λ*, Frank–Wolfe gaps, audit and sweep figures, unknown
}

Disclosure classifyCurve(const std::string& name) {
    if (startsWith(name, "lambda/")) return Disclosure::DpRelease;  // the DP-MixMin trajectory
    // PSG: distances between S's gradients and the DP gradients, post-processing of the latter
    if (name == "matching-distance") return Disclosure::DpRelease;
    if (name == "test-perplexity") return Disclosure::TestMetric;
    return Disclosure::NonPrivate;
}

bool isPublicOnlyMethod(const std::string& method) { return method == "proxy" || method == "text-proxies"; }

Disclosure classifyRun(const RunRecord& run, const std::optional<privacy::Ledger>& ledger) {
    if (kDiagnosticMethods.count(run.method)) return Disclosure::NonPrivate;
    if (!ledger) return isPublicOnlyMethod(run.method) ? Disclosure::Public : Disclosure::NonPrivate;
    if (ledger->entries().empty()) return Disclosure::Public;  // no mechanism touched the sensitive data
    if (!std::isfinite(ledger->total().epsilon)) return Disclosure::NonPrivate;
    for (const auto& e : ledger->entries())
        if (privacy::isSeededRelease(e)) return Disclosure::NonPrivate;
    return Disclosure::DpRelease;
}

// An altered file is said so before anything else: its contents cannot be taken at their word.
static std::string alteredPrefix(const std::vector<std::string>& problems) {
    if (problems.empty()) return "";
    std::string text = "ALTERED: " + problems.front();
    if (problems.size() > 1) text += " (and " + std::to_string(problems.size() - 1) + " more)";
    return text + "; do not trust its figures. ";
}

std::string TrustVerdict::headline() const { return alteredPrefix(integrityProblems) + contentHeadline(); }

std::string TrustVerdict::contentHeadline() const {
    if (!dpOnly)
        return "keep inside the data owner's trust boundary: contains non-private results of the sensitive data (" +
               join(nonPrivate, "; ") + ")";
    std::string text = release ? "DP release: " : "";
    if (releases == 0) return text + "contains no DP release and nothing non-private";
    text += "contains only DP releases at (epsilon, delta) = (" + fixed(epsilon, 3) + ", " +
            privacy::formatNumber(delta) + ") per " + (unit == "users" ? "user" : "example");
    if (unestablished) text += "; includes a mechanism whose guarantee is only claimed by its authors (Dirichlet)";
    if (testMetrics) text += "; also test metrics of the sensitive test split, NOT covered by the guarantee";
    return text;
}

std::string TrustVerdict::shortLabel() const {
    if (!integrityProblems.empty()) return "ALTERED: does not verify";
    if (!dpOnly) return "non-private results: keep inside the trust boundary";
    std::string text = release ? "DP release" : "DP releases only";
    if (releases > 0) text += " (epsilon " + fixed(epsilon, 2) + ")";
    if (testMetrics) text += " + test metrics not covered";
    return text;
}

namespace {

// What one run's stored records disclose beyond its ledger: non-private λs, test metrics and
// curves, statistics no ledger covers, audits, logs, and models of a non-private run.
Status findInRunRecords(const ProjectFile& project, const RunRecord& run, Disclosure runClass, const TrustVerdict& v,
                        Findings& found) {
    auto lambdas = project.lambdas(run.id);
    if (!lambdas) return lambdas.error();
    for (const auto& l : *lambdas) {
        if (classifyLambda(l.kind) != Disclosure::NonPrivate) continue;
        const auto of = methods::methodOfLambdaKind(l.kind);
        if (of == methods::Method::NonPrivateMixMin)
            found.add(1, "lambda* (non-private MixMin)", run.id);
        else if (of == methods::Method::RandomSearch)
            found.add(2, "Random Search's choice", run.id);
        else
            found.add(9, "mixture weights no ledger covers", run.id, l.kind);
    }
    // Test metrics are non-private in a project; a release may hold them only when its
    // manifest declares them (they are then stated on every view, not listed here).
    const bool testMetricsDeclared = v.release && v.testMetrics;
    auto noteTestMetric = [&] {
        if (!testMetricsDeclared)
            found.add(4, v.release ? "test metrics the release does not declare" : "test metrics", run.id);
    };
    auto metrics = project.metrics(run.id);
    if (!metrics) return metrics.error();
    for (const auto& m : *metrics) {
        const Disclosure d = classifyMetric(m.name);
        if (d == Disclosure::TestMetric) noteTestMetric();
        if (d == Disclosure::NonPrivate) found.add(9, "statistics no ledger covers", run.id, m.name);
    }
    auto curves = project.curveNames(run.id);
    if (!curves) return curves.error();
    for (const auto& c : *curves) {
        const Disclosure d = classifyCurve(c);
        if (d == Disclosure::TestMetric) noteTestMetric();
        if (d == Disclosure::NonPrivate) found.add(9, "curves no ledger covers", run.id, c);
    }
    auto audits = project.audits(run.id);
    if (!audits) return audits.error();
    if (!audits->empty()) found.add(5, "audits", run.id);
    auto logs = project.logs(run.id);
    if (!logs) return logs.error();
    if (!logs->empty()) found.add(10, "run logs", run.id);
    auto models = project.models(run.id);
    if (!models) return models.error();
    if (!models->empty() && runClass == Disclosure::NonPrivate) found.add(3, "models no DP guarantee covers", run.id);
    return std::nullopt;
}

}  // namespace

Result<TrustVerdict> trustVerdict(const ProjectFile& project) {
    TrustVerdict v;
    Findings found;
    auto sources = project.sources();
    if (!sources) return sources.error();
    for (const auto& s : *sources)
        if (s.role == project::SourceRole::Sensitive && !s.facts.contentHash.empty())
            found.add(8, "the sensitive data's content hash (an exact membership test)");
    if (project.isRelease()) {
        auto manifest = releaseManifestFromJson(project.releaseManifestJson());
        if (!manifest) return Error{project.path().string() + ": " + manifest.error().message};
        v.release = true;
        v.testMetrics = manifest->includesTestMetrics;
    }
    auto runs = project.runs();
    if (!runs) return runs.error();
    std::vector<RunLedgers> runLedgers;  // read once, for the budget below too
    for (const auto& run : *runs) {
        auto records = project.ledgers(run.id);
        if (!records) return records.error();
        runLedgers.push_back({run, *records});
        std::optional<privacy::Ledger> ledger;
        if (!records->empty()) {
            auto parsed = privacy::ledgerFromJson(records->back().ledgerJson);
            if (!parsed)
                return Error{"run " + std::to_string(run.id) +
                             ": its ledger cannot be read: " + parsed.error().message};
            ledger = std::move(parsed).value();
            for (const auto& e : ledger->entries()) {
                if (privacy::isSeededRelease(e))
                    found.add(7, "seeded (reproducible) runs, whose randomness the stored seed regenerates", run.id);
                if (!e.established && e.mechanism != privacy::MechanismKind::NonPrivate) v.unestablished = true;
            }
        }
        const Disclosure runClass = classifyRun(run, ledger);
        if (run.method == "audit")
            found.add(5, "audits", run.id);
        else if (kDiagnosticMethods.count(run.method))
            found.add(6, "experiments (sweeps, k-scaling, AdaMix-R)", run.id);
        else if (methods::isNonPrivateChoice(run.method))
            found.add(3, "non-private baselines", run.id);

        if (auto e = findInRunRecords(project, run, runClass, v, found)) return *e;
    }
    v.nonPrivate = found.phrases();
    v.nonPrivateKinds = found.kinds();
    v.dpOnly = found.empty();
    auto budget = budgetOf(project.spec(), runLedgers);
    if (!budget) return budget.error();
    v.epsilon = budget->total.epsilon;
    v.delta = budget->total.delta;
    v.releases = budget->total.releases;
    v.unit = budget->unit;
    auto integrity = project.verifyIntegrity();
    if (!integrity) return integrity.error();
    v.integrityProblems = integrity->problems();
    v.integrityNotices = integrity->notices();
    v.signatures = integrity->signatureLines();
    return v;
}

}  // namespace dpmix::project
