// The text study end to end on a tiny generated project: three public domains with disjoint
// word lists, one of which ("letters") generates the sensitive mail of 40 users.
#include "engine/data/source_loader.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/user_groups.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/prv_accountant.h"
#include "engine/project/project_budget.h"
#include "engine/project/project_opener.h"
#include "engine/text_study/text_study.h"

#include "tests/support/own_budget_store.h"
#include "tests/support/unit_test.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::text_study;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kCode = {"int",   "return", "void",  "struct", "static",
                                        "const", "while",  "break", "switch", "case"};
const std::vector<std::string> kPoems = {"moon",    "river",  "silver", "dream", "autumn",
                                         "whisper", "shadow", "golden", "wind",  "night"};
const std::vector<std::string> kLetters = {"dear",   "thanks",   "meeting", "tomorrow", "regards",
                                           "please", "attached", "office",  "call",     "friday"};

std::string sentence(const std::vector<std::string>& words, std::mt19937_64& rng, int length) {
    std::uniform_int_distribution<std::size_t> pick(0, words.size() - 1);
    std::string s;
    for (int i = 0; i < length; ++i) s += (i ? " " : "") + words[pick(rng)];
    return s;
}

std::string jsonString(const std::string& s) { return "\"" + s + "\""; }  // generated text has no quotes

void writeDomain(const fs::path& file, const std::vector<std::string>& words, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::ofstream out(file);
    for (int d = 0; d < 150; ++d) out << "{\"text\": " << jsonString(sentence(words, rng, 30)) << "}\n";
}

void writeMail(const fs::path& file, int users, int perUser, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::ofstream out(file);
    for (int u = 0; u < users; ++u)
        for (int m = 0; m < perUser; ++m)
            out << "{\"text\": " << jsonString(sentence(kLetters, rng, 25)) << ", \"user\": \"user" << u
                << "@example.org\"}\n";
}

project::SourceSummarizer summarizer() {
    return [](const data::SourceSpec& spec) -> Result<project::SourceFacts> {
        auto s = data::summarizeSource(spec);
        if (!s) return s.error();
        project::SourceFacts f;
        f.kind = s->kind;
        f.examples = s->examples;
        f.domains = s->domains;
        f.users = s->users;
        f.contentHash = s->contentHash;
        return f;
    };
}

constexpr double kRho = 0.5;
constexpr long long kBatch = 8;
constexpr long long kSteps = 50;

// A spec in the same format as projects/spam-mail.json.
fs::path writeProject(const fs::path& dir, bool userLevel = true) {
    writeDomain(dir / "code.jsonl", kCode, 1);
    writeDomain(dir / "poems.jsonl", kPoems, 2);
    writeDomain(dir / "letters.jsonl", kLetters, 3);
    writeMail(dir / "mail.jsonl", 40, 3, 4);
    const std::string spec = R"({
  "name": "tiny-mail",
  "public_sources": [
    {"name": "code", "loader": "jsonl", "path": "code.jsonl", "options": {}},
    {"name": "poems", "loader": "jsonl", "path": "poems.jsonl", "options": {}},
    {"name": "letters", "loader": "jsonl", "path": "letters.jsonl", "options": {}}
  ],
  "sensitive": {"name": "mail", "loader": "jsonl", "path": "mail.jsonl", "options": {}, "user_level": )" +
                             std::string(userLevel ? "true" : "false") + R"(},
  "tasks": {"public": [], "sensitive": []},
  "privacy": {"epsilon": 1, "delta": 1e-05, "rho": 0.5, "composition": "parallel"},
  "stages": {"mixture": {"clip": 0.01, "batch": 8, "lr": 5.0, "steps": 50, "user_group_size": 2}},
  "seeds": [0, 1]
})";
    std::ofstream(dir / "tiny.json") << spec;
    return dir / "tiny.json";
}

TextStudySettings tinySettings() {
    TextStudySettings s;
    s.vocabularySize = 300;
    s.tokenizerBytesPerDomain = 1 << 20;
    s.maxTokensPerDocument = 64;
    return s;
}

// The mixture of a downstream run (dpmix-text --export-tokens).
TextStudySettings downstreamSettings() {
    TextStudySettings s = tinySettings();
    s.downstream = true;
    return s;
}

[[noreturn]] void fatal(const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::abort();
}

std::vector<long long> dpMixMinRuns(const project::ProjectFile& p) {
    std::vector<long long> ids;
    for (const auto& r : p.runs().value())
        if (r.method == "dp-mixmin") ids.push_back(r.id);
    return ids;
}

privacy::LedgerEntry onlyEntry(const project::ProjectFile& p, long long run) {
    const auto records = p.ledgers(run).value();
    if (records.empty()) fatal(dpmix::test_support::str("run ", run, " has no ledger"));
    const auto ledger = privacy::ledgerFromJson(records.back().ledgerJson).value();
    if (ledger.entries().size() != 1) fatal(dpmix::test_support::str("run ", run, ": not one entry"));
    return ledger.entries().front();
}

std::vector<double> privateLambda(const project::ProjectFile& p, long long run) {
    for (const auto& l : p.lambdas(run).value())
        if (l.kind == "private") return l.values;  // DP-MixMin's λ
    fatal(dpmix::test_support::str("run ", run, " stores no private lambda"));
}

std::size_t budgetReleases(const project::ProjectFile& p) { return project::projectBudget(p).value().releases.size(); }

std::vector<double> asVector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

// A mixture-only run of seed 0 at ε = 1, then its release: the one DP-MixMin run.
long long releaseOneMixture(project::ProjectFile& proj, const StudyRunOptions& options) {
    auto first = runTextStudy(proj, options, tinySettings());
    if (!first) fatal(first.error().message);
    const auto ids = dpMixMinRuns(proj);
    if (ids.size() != 1) fatal("the mixture-only run stored no single DP-MixMin run");
    return ids.front();
}

}  // namespace

class TestTextStudy : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir stores_;
private Q_SLOTS:
    void init() { dpmix::test_support::useOwnBudgetStore(stores_); }
    void runsTheMixtureStageOnText() {
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        auto created = project::createProjectFromSpecFile(writeProject(root), root / "tiny.dpmix", summarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        project::ProjectFile proj = std::move(created).value();
        auto sources = proj.sources();
        QVERIFY(sources.ok());
        QVERIFY(project::isTextStudy(*sources));

        StudyRunOptions options;
        options.randomSearchCandidates = 20;
        auto report = runTextStudy(proj, options, tinySettings());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        const auto& r = *report;
        QCOMPARE(r.study.componentNames, (std::vector<std::string>{"code", "letters", "poems"}));
        QCOMPARE(r.study.mixtures.size(), std::size_t(2));
        QCOMPARE(r.seeds.size(), std::size_t(2));

        // 40 users, each on a side of their own (stable split): about 10% test users, whole users
        // with their 3 mails each.
        QVERIFY(r.testUsers >= 1 && r.testUsers <= 12);
        QCOMPARE(r.testDocuments, 3 * r.testUsers);
        QCOMPARE(static_cast<long long>(std::set<std::string>(r.testUserIds.begin(), r.testUserIds.end()).size()),
                 r.testUsers);
        std::set<std::string> test(r.testUserIds.begin(), r.testUserIds.end());
        for (std::size_t i = 0; i < r.seeds.size(); ++i) {
            const auto& d = r.seeds[i];
            const auto& m = r.study.mixtures[i];
            // Split A and B share no user, and neither touches the test users.
            std::set<std::string> a(d.userIdsA.begin(), d.userIdsA.end());
            for (const auto& u : d.userIdsB) QVERIFY2(!a.count(u), u.c_str());
            for (const auto& u : a) QVERIFY(!test.count(u));
            for (const auto& u : d.userIdsB) QVERIFY(!test.count(u));
            // About half of the ~32 training users each (a stable split draws each user's side on its
            // own), 3 mails per user; every training user is on one side.
            QCOMPARE(d.usersA, static_cast<long long>(a.size()));
            QVERIFY(d.usersA + d.usersB + r.testUsers <= 40);  // the rest are validation users
            QVERIFY(d.usersA >= 4 && d.usersB >= 4);
            QCOMPARE(m.splitA, 3 * d.usersA);
            QCOMPARE(m.splitB, 3 * d.usersB);

            const auto& o = m.outcome;
            // λ* puts its weight on the domain that generated the mail (index 1 = "letters").
            QVERIFY2(o.lambdaStar[1] > 0.95, std::to_string(o.lambdaStar[1]).c_str());
            QCOMPARE(o.privateLambdas.size(), std::size_t(1));
            const auto& p = o.privateLambdas[0];
            DPMIX_COMPARE_NEAR(p.lambda.sum(), 1.0, 1e-9);
            // The DP ledger entry is user level, on split A, with ε at most the target, and that
            // ε agrees with an evaluation by the accountant of a new project (PRV: the smaller of
            // its upper bound and RDP) at q = users per step / users of A.
            QVERIFY(p.ledgerEntry.unit == privacy::PrivacyUnit::User);
            QCOMPARE(p.ledgerEntry.split, std::string("A"));
            QVERIFY(p.epsilonSpent <= 1.0);
            QVERIFY2(p.epsilonSpent > 0.99, std::to_string(p.epsilonSpent).c_str());
            const double q = static_cast<double>(kBatch) / static_cast<double>(d.usersA);  // the realised size
            DPMIX_COMPARE_NEAR(p.ledgerEntry.q, q, 1e-12);
            QVERIFY(p.ledgerEntry.accounting == privacy::Accountant::Prv);
            const double independent = std::min(privacy::prvEpsilon({{q, p.sigma, kSteps}}, 1e-5)->upper,
                                                privacy::gaussianEpsilon({q, p.sigma, kSteps}, 1e-5).epsilon);
            DPMIX_COMPARE_NEAR(independent, p.epsilonSpent, 1e-9);

            // Perplexities: every λ's mixture is a proper model on 300 ids, and λ* (almost all on
            // the generating domain) beats the uniform mixture on the test users' mail.
            QVERIFY(d.perplexityStar > 1.0);
            QVERIFY(d.perplexityStar < d.perplexityUniform);
            QVERIFY(d.perplexityRandomSearch >= d.perplexityStar * (1 - 1e-9) ||
                    d.perplexityRandomSearch < d.perplexityUniform);
            QCOMPARE(d.perplexityDp.size(), std::size_t(1));
            QVERIFY(std::isfinite(d.perplexityDp[0]) && d.perplexityDp[0] > 1.0);
        }

        // Storage: per seed one run each of non-private, uniform, random search and DP-MixMin
        // (task = the sensitive source's name), plus the proxies run; the DP ledger as above.
        auto runs = proj.runs();
        QVERIFY(runs.ok());
        int dpRuns = 0, proxyRuns = 0;
        for (const auto& run : *runs) {
            QCOMPARE(toString(run.status), toString(project::RunStatus::Done));
            if (run.method == "text-proxies") {
                ++proxyRuns;
                continue;
            }
            QCOMPARE(run.task, std::string("mail"));
            auto metrics = proj.metrics(run.id);
            QVERIFY(metrics.ok());
            bool hasPerplexity = false;
            for (const auto& mr : *metrics) hasPerplexity |= mr.name == "test-perplexity";
            QVERIFY2(hasPerplexity, run.method.c_str());
            if (run.method != "dp-mixmin") continue;
            ++dpRuns;
            QVERIFY(run.epsilon && *run.epsilon == 1.0);
            auto ledgers = proj.ledgers(run.id);
            QVERIFY(ledgers.ok() && ledgers->size() == 1);
            auto ledger = privacy::ledgerFromJson(ledgers->front().ledgerJson);
            QVERIFY(ledger.ok());
            QCOMPARE(ledger->entries().size(), std::size_t(1));
            QVERIFY(ledger->entries()[0].unit == privacy::PrivacyUnit::User);
            QVERIFY(ledger->entries()[0].epsilon <= 1.0);
        }
        QCOMPARE(dpRuns, 2);
        QCOMPARE(proxyRuns, 1);
    }

    // Text studies (docs/PRIVACY.md, "Reusing a released mixture"): the mixture of a downstream run (dpmix-text
    // --export-tokens) reuses the DP-MixMin λ a mixture-only run released for the same seed, ε and settings — bit for
    // bit, no second mechanism on split A, its entry carried marked with the run that spent it, the budget counting one
    // release; --relearn-mixture learns and spends again (marked with its own new run). Fails on the old code, which
    // learned, stored and charged a second DP-MixMin run.
    void aDownstreamMixtureReusesTheReleasedLambda() {
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        auto created = project::createProjectFromSpecFile(writeProject(root), root / "tiny.dpmix", summarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        project::ProjectFile proj = std::move(created).value();
        StudyRunOptions options;
        options.seeds = {0};
        options.randomSearchCandidates = 5;
        const long long released = releaseOneMixture(proj, options);
        const privacy::LedgerEntry releasedEntry = onlyEntry(proj, released);
        const std::vector<double> releasedLambda = privateLambda(proj, released);
        QCOMPARE(budgetReleases(proj), std::size_t(1));

        std::vector<std::string> said;
        auto reusing = runTextStudy(proj, options, downstreamSettings(), {}, {},
                                    [&](const std::string& line) { said.push_back(line); });
        QVERIFY2(reusing.ok(), reusing.ok() ? "" : reusing.error().message.c_str());
        const auto& p = reusing->study.mixtures.at(0).outcome.privateLambdas.at(0);
        QCOMPARE(asVector(p.lambda), releasedLambda);  // bit for bit
        QCOMPARE(p.ledgerEntry.spentInRun, released);
        QVERIFY(privacy::sameRelease(p.ledgerEntry, releasedEntry));
        QCOMPARE(reusing->seeds.at(0).perplexityDp.size(), std::size_t(1));
        QCOMPARE(dpMixMinRuns(proj), std::vector<long long>{released});  // no second mechanism
        bool toldTheUser = false;
        for (const auto& line : said)
            toldTheUser |= line.find("reused from run " + std::to_string(released)) != std::string::npos;
        QVERIFY(toldTheUser);
        QCOMPARE(budgetReleases(proj), std::size_t(1));

        // Asked to learn again: a new mechanism on split A, its own run, counted.
        options.relearnMixture = true;
        auto relearned = runTextStudy(proj, options, downstreamSettings());
        QVERIFY2(relearned.ok(), relearned.ok() ? "" : relearned.error().message.c_str());
        const auto ids = dpMixMinRuns(proj);
        QCOMPARE(ids.size(), std::size_t(2));
        const auto& again = relearned->study.mixtures.at(0).outcome.privateLambdas.at(0);
        QCOMPARE(again.ledgerEntry.spentInRun, ids.back());  // the language-model run carries it: counted there
        QCOMPARE(asVector(again.lambda), privateLambda(proj, ids.back()));
        QCOMPARE(budgetReleases(proj), std::size_t(2));
    }

    // A stored release is reused only when it is the mechanism DP-MixMin would run now: another ρ
    // (another configuration and split A), another accountant (another entry under the same
    // configuration), or a stored entry altered in one number, and λ is learned and spent again.
    void aMismatchedReleaseIsNotReused_data() {
        QTest::addColumn<QString>("change");
        QTest::newRow("rho") << "rho";
        QTest::newRow("accountant") << "accountant";
        QTest::newRow("altered entry") << "altered entry";
    }
    void aMismatchedReleaseIsNotReused() {
        QFETCH(QString, change);
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        auto created = project::createProjectFromSpecFile(writeProject(root), root / "tiny.dpmix", summarizer());
        QVERIFY(created.ok());
        project::ProjectFile proj = std::move(created).value();
        StudyRunOptions options;
        options.seeds = {0};
        options.randomSearchCandidates = 5;
        const long long released = releaseOneMixture(proj, options);
        if (change == "rho") options.rho = 0.4;
        if (change == "accountant") options.accountant = privacy::Accountant::Rdp;  // the spec's is PRV
        if (change == "altered entry") {
            privacy::LedgerEntry altered = onlyEntry(proj, released);
            altered.sigma *= 1.0 + 1e-9;
            privacy::Ledger ledger(privacy::Composition::Parallel);
            ledger.record(altered);
            QVERIFY(proj.recordLedger(released, ledger).ok());
        }
        auto learned = runTextStudy(proj, options, downstreamSettings());
        QVERIFY2(learned.ok(), learned.ok() ? "" : learned.error().message.c_str());
        const auto ids = dpMixMinRuns(proj);
        QCOMPARE(ids.size(), std::size_t(2));
        QCOMPARE(learned->study.mixtures.at(0).outcome.privateLambdas.at(0).ledgerEntry.spentInRun, ids.back());
        QCOMPARE(budgetReleases(proj), std::size_t(2));
    }

    void theBudgetCapStopsTheSecondSeedBeforeItsMechanism() {
        // Cap 1 at ε = 1 per seed: seed 0's DP-MixMin fits; seed 1 cuts the mail differently, so
        // composed with seed 0 it would pass the cap: refused before its mechanism, no run stored.
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        const fs::path specFile = writeProject(root);
        std::string text;
        {
            std::ifstream in(specFile);
            text.assign(std::istreambuf_iterator<char>(in), {});
        }
        const std::string from = R"("composition": "parallel"})";
        text.replace(text.find(from), from.size(), R"("composition": "parallel", "budget": 1})");
        std::ofstream(specFile) << text;
        auto created = project::createProjectFromSpecFile(specFile, root / "tiny.dpmix", summarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        project::ProjectFile proj = std::move(created).value();
        StudyRunOptions options;
        options.randomSearchCandidates = 5;
        auto report = runTextStudy(proj, options, tinySettings());
        QVERIFY(!report.ok());
        QVERIFY2(report.error().message.find("privacy budget cap 1:") != std::string::npos,
                 report.error().message.c_str());
        int dp = 0;
        const auto storedRuns = *proj.runs();  // a local: the temporary Result dies before the loop
        for (const auto& r : storedRuns) {
            if (r.method != "dp-mixmin") continue;
            ++dp;
            QCOMPARE(r.seed, 0LL);
        }
        QCOMPARE(dp, 1);
    }

    void aCancelledMixtureKeepsWhatItSpent() {
        // Cancelled after seed 0's first DP-MixMin mechanism (its λ is stored only after the
        // seed's loop): that mechanism is stored as a cancelled run with its ledger.
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        auto created = project::createProjectFromSpecFile(writeProject(root), root / "tiny.dpmix", summarizer());
        QVERIFY(created.ok());
        project::ProjectFile proj = std::move(created).value();
        StudyRunOptions options;
        options.randomSearchCandidates = 5;
        options.epsilons = {1.0, 2.0};
        CancellationToken token;
        auto progress = [&](const ProgressEvent& e) {
            if (e.stage == "mixture") token.cancel();
        };
        bool cancelled = false;
        try {
            (void)runTextStudy(proj, options, tinySettings(), progress, token);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        std::vector<project::RunRecord> dp;
        const auto storedRunsAgain = *proj.runs();
        for (const auto& r : storedRunsAgain)
            if (r.method == "dp-mixmin") dp.push_back(r);
        QCOMPARE(dp.size(), std::size_t(1));
        QVERIFY(dp[0].status == project::RunStatus::Cancelled);
        QCOMPARE(*dp[0].epsilon, 1.0);
        QCOMPARE(proj.ledgers(dp[0].id)->size(), std::size_t(1));
        QVERIFY(proj.lambdas(dp[0].id)->empty());
        QCOMPARE(project::projectBudget(proj).value().total.releases, 1LL);
    }

    void proxiesOnlyTouchesNoSensitiveRun() {
        // Stage "proxies" alone: the tokenizer run is stored, no mixture run exists.
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        auto created = project::createProjectFromSpecFile(writeProject(root), root / "tiny.dpmix", summarizer());
        QVERIFY(created.ok());
        project::ProjectFile proj = std::move(created).value();
        StudyRunOptions options;
        options.stages = {"proxies"};
        auto report = runTextStudy(proj, options, tinySettings());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->study.componentNames.size(), std::size_t(3));
        QVERIFY(report->study.mixtures.empty());
        auto runs = proj.runs();
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), std::size_t(1));
        QCOMPARE(runs->front().method, std::string("text-proxies"));
        QCOMPARE(proj.models(runs->front().id)->size(), std::size_t(1));  // the tokenizer
        // An unknown stage is refused before anything is stored.
        options.stages = {"finetune"};
        auto refused = runTextStudy(proj, options, tinySettings());
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("finetune") != std::string::npos, refused.error().message.c_str());
        QCOMPARE(proj.runs()->size(), std::size_t(1));
    }

    void theSameEpsilonTwiceIsRefusedAsInTheImageStudy() {
        // `dpmix-text run P --epsilon 1,1` once ran (and charged) the same release twice, where
        // `dpmix run` refuses: both studies now share one check (engine/study_plan). Nothing is
        // stored, and an ε out of range gets the image study's message too.
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        auto created = project::createProjectFromSpecFile(writeProject(root), root / "tiny.dpmix", summarizer());
        QVERIFY(created.ok());
        project::ProjectFile proj = std::move(created).value();
        StudyRunOptions options;
        options.epsilons = {1.0, 1.0};
        auto twice = runTextStudy(proj, options, tinySettings());
        QVERIFY(!twice.ok());
        QVERIFY2(twice.error().message.find("epsilon: 1 is given twice") != std::string::npos,
                 twice.error().message.c_str());
        options.epsilons = {1e308};
        auto huge = runTextStudy(proj, options, tinySettings());
        QVERIFY(!huge.ok());
        QVERIFY2(huge.error().message.find("out of range: expected ε in [1e-9, 1e6]") != std::string::npos,
                 huge.error().message.c_str());
        QVERIFY(proj.runs()->empty());
    }

    void gradientNormDiagnosticMatchesClosedForm() {
        // Sequence objective, k = 2: ∂ℓ_j/∂λ_i = −(1/L_j) e^{LL_ji} / Σ_l λ_l e^{LL_jl}. At λ = (½, ½)
        // a mail dominated by one domain (the other's LL = −200, e^−200 ≈ 1e−87) has gradient
        // −(2/L) e_i, tangent-projected (∓1/L, ±1/L), norm √2/L; equal LLs give a multiple of 1: norm 0.
        Eigen::MatrixXd ll(4, 2);
        ll << 0, -200, -5, -5, -200, 0, -200, 0;
        auto objective = mixmin::makeSequenceObjective(ll, {10, 4, 20, 5});
        QVERIFY(objective.ok());
        auto users = mixmin::makeUserGroups({{0, 2}, {1}, {3}}, 4);
        QVERIFY(users.ok());
        const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(2, 0.5);
        const double r2 = std::sqrt(2.0);
        // G = 1: user 0 uses mail 0 only → √2/10; user 1 → 0; user 2 → √2/5. Nearest-rank quantiles.
        auto q1 = userGradientNormQuantiles(*objective, *users, 1, uniform);
        QCOMPARE(q1.size(), std::size_t(3));
        DPMIX_COMPARE_NEAR(q1[0], 0.0, 1e-12);
        DPMIX_COMPARE_NEAR(q1[1], r2 / 10, 1e-12);
        DPMIX_COMPARE_NEAR(q1[2], r2 / 5, 1e-12);
        // G = 2: user 0 averages (−0.2, 0) and (0, −0.1) → (−0.1, −0.05) → projected norm 0.025·√2.
        auto q2 = userGradientNormQuantiles(*objective, *users, 2, uniform);
        DPMIX_COMPARE_NEAR(q2[1], 0.025 * r2, 1e-12);
        // Example level: norms √2/10, 0, √2/20, √2/5 → sorted 0, √2/20, √2/10, √2/5; ranks 0, 2, 3.
        auto q3 = userGradientNormQuantiles(*objective, std::nullopt, 1, uniform);
        DPMIX_COMPARE_NEAR(q3[1], r2 / 10, 1e-12);
        DPMIX_COMPARE_NEAR(q3[2], r2 / 5, 1e-12);
    }

    void exampleLevelStudyUsesAlgorithmOne() {
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        auto created = project::createProjectFromSpecFile(writeProject(root, false), root / "tiny.dpmix", summarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        project::ProjectFile proj = std::move(created).value();
        StudyRunOptions options;
        options.seeds = {3};
        options.randomSearchCandidates = 10;
        auto report = runTextStudy(proj, options, tinySettings());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        // 120 mails: about 96 train, split A about half of them (a stable split: Binomial sizes);
        // q = expected batch 8 / |A| with the realised size.
        const auto& m = report->study.mixtures.at(0);
        QVERIFY(m.splitA >= 20 && m.splitA <= 76);
        QCOMPARE(report->seeds.at(0).usersA, 0LL);
        const auto& p = m.outcome.privateLambdas.at(0);
        QVERIFY(p.ledgerEntry.unit == privacy::PrivacyUnit::Example);
        DPMIX_COMPARE_NEAR(p.ledgerEntry.q, 8.0 / static_cast<double>(m.splitA), 1e-12);
        QVERIFY(p.epsilonSpent <= 1.0);
        QVERIFY(m.outcome.lambdaStar[1] > 0.95);
    }

    void userLevelNeedsUsers() {
        dpmix::test_support::TempDir dir;
        const fs::path root = dir.path();
        writeProject(root);
        // Same mail without its users: the spec still says user_level, the project refuses it
        // (no users in the facts) or the study does; either way nothing runs.
        std::ofstream(root / "mail.jsonl") << "{\"text\": \"dear friday\"}\n{\"text\": \"thanks office\"}\n";
        auto created = project::createProjectFromSpecFile(root / "tiny.json", root / "tiny.dpmix", summarizer());
        if (!created) {
            QVERIFY2(created.error().message.find("user") != std::string::npos, created.error().message.c_str());
            return;
        }
        project::ProjectFile proj = std::move(created).value();
        auto report = runTextStudy(proj, {}, tinySettings());
        QVERIFY(!report.ok());
        QVERIFY2(report.error().message.find("user") != std::string::npos, report.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestTextStudy)
#include "tst_text_study.moc"
