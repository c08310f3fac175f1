// The mail study's LM stages on a tiny token cache: every method is stored under its exact name
// with the curve and metric the workbench plots, fine-tunes on the right users (q = users per
// step / users, derived by hand from the splits), and carries the right ledger; a cache made
// with another tokenizer is refused before anything is stored.
#include "engine/data/sha256.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_budget.h"
#include "engine/text_downstream/text_downstream.h"

#include "tests/support/unit_test.h"

#include <cstdio>
#include <filesystem>
#include <map>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::text_downstream;
using namespace dpmix::text_tokens;
namespace fs = std::filesystem;

namespace {

const std::string kTokenizerBytes = "not a real sentencepiece model, only its bytes matter here";

project::ProjectSpec textSpec() {
    project::ProjectSpec spec;
    spec.name = "mail";
    spec.description = "tiny text study";
    for (const char* name : {"news", "code"}) {
        project::SpecSource s;
        s.written = {name, "jsonl", std::string(name) + ".jsonl", {}};
        spec.publicSources.push_back(s);
    }
    spec.sensitive.written = {"mail", "jsonl", "mail.jsonl", {}};
    spec.sensitive.userLevel = true;
    spec.privacy.epsilons = {1.0};
    spec.privacy.delta = 1e-5;
    spec.privacy.rho = 0.5;
    spec.seeds = {0};
    return spec;
}

std::vector<project::SourceFacts> textFacts() {
    project::SourceFacts pub{dpmix::data::SourceKind::Text, 2, {}, {}, 0, std::string(64, 'a'), 0, 0, 0};
    project::SourceFacts priv{dpmix::data::SourceKind::Text, 5, {}, {}, 5, std::string(64, 'b'), 0, 0, 0};
    return {pub, pub, priv};
}

// The mixture mechanism whose λ the tiny cache holds.
privacy::LedgerEntry tinyMixtureEntry() {
    return privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::User, 0.5, 3.0, 10, 1e-5, 0.01);
}

TokenCache tinyCache(const std::string& tokenizerHash) {
    TokenCache c;
    c.task = "mail";
    c.tokenizerSha256 = tokenizerHash;
    c.vocabulary = 10;
    c.domains = {"news", "code"};
    c.publicDomains.resize(2);
    c.publicDomains[0].add({3, 4, 5, 6, 3, 4, 5, 6, 2});
    c.publicDomains[1].add({7, 8, 9, 7, 8, 9, 7, 8, 2});
    c.users = {"u0", "u1", "u2", "u3", "u4"};
    for (std::int32_t u = 0; u < 5; ++u) {
        c.sensitive.add({3, static_cast<std::int32_t>(4 + u), 5, 6, 7, 2});
        c.documentUser.push_back(u);
    }
    c.testUsers = {4};
    SeedMixtures s;
    s.seed = 0;
    s.usersA = {0, 1};
    s.usersB = {2, 3};
    s.lambdaStar = {0.9, 0.1};
    s.lambdaUniform = {0.5, 0.5};
    s.lambdaRandomSearch = {0.7, 0.3};
    privacy::Ledger mixture;
    mixture.record(tinyMixtureEntry());
    s.privateLambdas.push_back({1.0, {0.8, 0.2}, privacy::ledgerToJson(mixture)});
    c.seeds.push_back(s);
    return c;
}

TextDownstreamSettings tinySettings() {
    TextDownstreamSettings s;
    s.model.layers = 1;
    s.model.width = 8;
    s.model.heads = 2;
    s.model.context = 4;
    s.pretrainSteps = 3;
    s.pretrainBatch = 4;
    s.finetuneSteps = 3;
    s.finetuneUsers = 1;
    s.trainLastBlocks = 2;
    s.evaluateEvery = 2;
    s.evaluationTokens = 0;
    return s;
}

[[noreturn]] void fatal(const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::abort();
}

privacy::Ledger storedLedger(project::ProjectFile& p, long long run) {
    auto ledgers = p.ledgers(run);
    if (!ledgers || ledgers->empty()) fatal(dpmix::test_support::str("run ", run, " has no ledger"));
    return privacy::ledgerFromJson(ledgers->back().ledgerJson).value();
}

// The tiny cache with its λ's entry carried from run `released` (as dpmix-text exports a λ that
// run released), the entry being `entry`.
TokenCache cacheCarrying(long long released, privacy::LedgerEntry entry) {
    TokenCache c = tinyCache(data::sha256Hex(kTokenizerBytes));
    entry.spentInRun = released;
    privacy::Ledger mixture;
    mixture.record(entry);
    c.seeds.at(0).privateLambdas.at(0).ledgerJson = privacy::ledgerToJson(mixture);
    return c;
}

std::size_t budgetReleases(const project::ProjectFile& p) { return project::projectBudget(p).value().releases.size(); }

}  // namespace

class TestTextDownstream : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        auto p = project::ProjectFile::create(fs::path(dir_.path()) / "mail.dpmix", textSpec(), textFacts());
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        project_ = std::make_unique<project::ProjectFile>(std::move(p).value());
        auto run = project_->addRun({"text-proxies", "", std::nullopt, 0, "{}"});
        QVERIFY(run.ok());
        QVERIFY(project_->setRunStatus(*run, project::RunStatus::Running).ok());
        QVERIFY(project_->storeModel(*run, "tokenizer", kTokenizerBytes).ok());
        QVERIFY(project_->setRunStatus(*run, project::RunStatus::Done).ok());
    }

    void refusesACacheFromAnotherTokenizer() {
        const auto before = project_->runs()->size();
        auto r = runTextDownstream(*project_, tinyCache(std::string(64, 'f')), {"uniform"}, {}, tinySettings());
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("--export-tokens") != std::string::npos, r.error().message.c_str());
        QCOMPARE(project_->runs()->size(), before);
    }

    void everyMethodStoredWithCurveMetricAndLedger() {
        const std::vector<std::string> methods{"dp-mixmin", "uniform", "random-search", "random-init",
                                               "non-private-mixmin"};
        auto r =
            runTextDownstream(*project_, tinyCache(data::sha256Hex(kTokenizerBytes)), methods, {1.0}, tinySettings());
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r->runs.size(), methods.size());
        // Users per step 1: q = 1/|B| = 1/2 on split B, 1/|A ∪ B| = 1/4 on the training split.
        const std::map<std::string, double> q{{"dp-mixmin", 0.5},
                                              {"random-search", 0.5},
                                              {"uniform", 0.25},
                                              {"random-init", 0.25},
                                              {"non-private-mixmin", 0.25}};
        for (std::size_t i = 0; i < methods.size(); ++i) {
            const auto& run = r->runs[i];
            QCOMPARE(run.method, methods[i]);
            auto record = project_->run(run.runId);
            QVERIFY(record.ok());
            QCOMPARE(record->method, methods[i]);
            QVERIFY(record->status == project::RunStatus::Done);
            QCOMPARE(record->epsilon.value_or(-1), 1.0);
            auto curve = project_->curve(run.runId, "test-perplexity");
            QVERIFY(curve.ok());
            QCOMPARE(curve->size(), std::size_t(3));  // steps 0, 2 and the last, 3
            QCOMPARE((*curve)[0].step, 0LL);
            QCOMPARE((*curve)[1].step, 2LL);
            QCOMPARE((*curve)[2].step, 3LL);
            double metric = -1;
            const auto metrics = project_->metrics(run.runId);
            QVERIFY(metrics.ok());
            for (const auto& m : *metrics)
                if (m.name == "test-perplexity") metric = m.value;
            QCOMPARE(metric, (*curve)[2].value);
            QVERIFY(metric > 1.0 && std::isfinite(metric));
            const auto ledger = storedLedger(*project_, run.runId);
            const auto& ft = ledger.entries().back();
            QCOMPARE(ft.stage, std::string("finetune"));
            QVERIFY(ft.unit == privacy::PrivacyUnit::User);
            QCOMPARE(ft.q, q.at(methods[i]));
            QCOMPARE(ft.split, std::string(q.at(methods[i]) == 0.5 ? "B" : "train"));
            auto lambdas = project_->lambdas(run.runId);
            QVERIFY(lambdas.ok());
            QCOMPARE(lambdas->size(), std::size_t(methods[i] == "random-init" ? 0 : 1));
        }
        // DP-MixMin's ledger: the mixture mechanism on A, then fine-tuning on B (parallel: max).
        const auto dp = storedLedger(*project_, r->runs[0].runId);
        QCOMPARE(dp.entries().size(), std::size_t(2));
        QCOMPARE(dp.entries()[0].stage, std::string("mixture"));
        QCOMPARE(dp.entries()[0].split, std::string("A"));
        QCOMPARE(project_->lambdas(r->runs[0].runId)->at(0).values, (std::vector<double>{0.8, 0.2}));
        // Random Search chose λ on A without DP: its total is ∞ and says so.
        QVERIFY(std::isinf(r->runs[2].ledgerEpsilon));
        QVERIFY(!std::isinf(r->runs[1].ledgerEpsilon));
        QVERIFY(r->runs[1].ledgerEpsilon <= 1.0 + 1e-6);
    }

    // Text studies (docs/PRIVACY.md, "Reusing a released mixture"): a λ the mixture stage took from the run that
    // released it (its entry marked spent_in_run) is carried into the DP-MixMin run's ledger and counted once, in that
    // run: the run's reservation plans only its fine-tuning, and the budget grows by that alone.
    // An entry that is not the release that run holds (altered) is counted here. Fails on the old
    // code, which reserved the mixture again with the fine-tuning.
    void aReusedLambdaIsCountedInTheRunThatReleasedIt() {
        auto release = project_->addRun({"dp-mixmin", "mail", 1.0, 0, R"({"stage":"mixture","rho":0.5})"});
        QVERIFY(release.ok());
        QVERIFY(project_->setRunStatus(*release, project::RunStatus::Running).ok());
        privacy::Ledger spent;
        spent.record(tinyMixtureEntry());
        QVERIFY(project_->recordLedger(*release, spent).ok());
        QVERIFY(project_->addLambda({*release, "private", {"news", "code"}, {0.8, 0.2}}).ok());
        QVERIFY(project_->setRunStatus(*release, project::RunStatus::Done).ok());
        const std::size_t before = budgetReleases(*project_);

        std::vector<std::vector<privacy::BudgetRelease>> reserved;  // the open reservations, mid-run
        auto progress = [&](const ProgressEvent&) {
            if (!reserved.empty()) return;
            for (const auto& r : project::projectBudget(*project_).value().reservations)
                if (r.open) reserved.push_back(r.planned);
        };
        auto r = runTextDownstream(*project_, cacheCarrying(*release, tinyMixtureEntry()), {"dp-mixmin"}, {1.0},
                                   tinySettings(), progress);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        const auto ledger = storedLedger(*project_, r->runs.at(0).runId);
        QCOMPARE(ledger.entries().size(), std::size_t(2));
        QCOMPARE(ledger.entries()[0].spentInRun, *release);
        QVERIFY(privacy::sameRelease(ledger.entries()[0], tinyMixtureEntry()));
        QCOMPARE(ledger.entries()[1].stage, std::string("finetune"));
        QCOMPARE(reserved.size(), std::size_t(1));
        QCOMPARE(reserved[0].size(), std::size_t(1));
        QCOMPARE(reserved[0][0].entry.stage, std::string("finetune"));
        QCOMPARE(budgetReleases(*project_), before + 1);

        // The same reference on an entry that differs in one number: not that run's release.
        privacy::LedgerEntry altered = tinyMixtureEntry();
        altered.sigma = 3.5;
        reserved.clear();
        auto counted = runTextDownstream(*project_, cacheCarrying(*release, altered), {"dp-mixmin"}, {1.0},
                                         tinySettings(), progress);
        QVERIFY2(counted.ok(), counted.ok() ? "" : counted.error().message.c_str());
        QCOMPARE(reserved.at(0).size(), std::size_t(2));
        QCOMPARE(budgetReleases(*project_), before + 1 + 2);
    }

private:
    dpmix::test_support::TempDir dir_;
    std::unique_ptr<project::ProjectFile> project_;
};

QTEST_APPLESS_MAIN(TestTextDownstream)
#include "tst_text_downstream.moc"
