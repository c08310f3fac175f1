// The trust boundary: the verdict on hand-made projects, and `export-release` of a project
// with every kind of run — read back table by table with the raw SQLite API, so the check does
// not rely on the code under test to say what the file holds.
#include "engine/project/release_export.h"

#include "engine/privacy/ledger.h"
#include "engine/project/project_budget.h"
#include "engine/project/release_manifest.h"
#include "engine/project/trust_verdict.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <filesystem>
#include <set>

using namespace dpmix;
using namespace dpmix::project;
using dpmix::test_support::TempDir;
using testing::rawExec;
using testing::rawInteger;
using testing::rawText;

namespace {

privacy::LedgerEntry mixtureEntry(privacy::RandomnessMode mode = privacy::RandomnessMode::Secret) {
    auto e = privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.2, 8.0, 100, 1e-5, 13.0);
    privacy::setRandomness(e, mode);
    return e;
}

privacy::LedgerEntry finetuneEntry() {
    return privacy::gaussianEntry("finetune", "B", privacy::PrivacyUnit::Example, 0.01, 1.0, 100, 1e-5, 2.0);
}

// All the rows of one column, joined by '|', in id order.
std::string column(const std::string& file, const std::string& table, const std::string& col) {
    return rawText(file,
                   "SELECT group_concat(" + col + ", '|') FROM (SELECT " + col + " FROM " + table + " ORDER BY id)");
}

std::set<std::string> distinct(const std::string& file, const std::string& table, const std::string& col) {
    std::set<std::string> out;
    const std::string all =
        rawText(file, "SELECT group_concat(v, '|') FROM (SELECT DISTINCT " + col + " AS v FROM " + table + ")");
    std::size_t start = 0;
    while (!all.empty() && start <= all.size()) {
        const auto bar = all.find('|', start);
        out.insert(all.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
        if (bar == std::string::npos) break;
        start = bar + 1;
    }
    return out;
}

// One of every kind of run the pipeline stores, with the artefacts it stores.
struct EveryKind {
    long long proxy, dpMixture, dpDownstream, uniformMixture, lambdaStar, randomSearch, audit, dirichlet, seeded, sweep,
        failed;
};

EveryKind storeEveryKind(ProjectFile& p) {
    EveryKind k{};
    const std::vector<std::string> names{"ab", "cd"};
    auto start = [&](const std::string& method, std::optional<double> eps,
                     const std::vector<privacy::LedgerEntry>& entries,
                     const std::string& config = R"({"stage":"mixture","rho":0.1,"randomness":"secret"})") {
        const long long id = p.addRun({method, "ac", eps, 0, config}).value();
        if (!entries.empty()) {
            privacy::Ledger ledger;
            for (const auto& e : entries) ledger.record(e);
            (void)p.recordLedger(id, ledger).value();
        }
        (void)p.setRunStatus(id, RunStatus::Running).value();
        return id;
    };
    auto done = [&](long long id) { (void)p.setRunStatus(id, RunStatus::Done).value(); };

    k.proxy = start("proxy", std::nullopt, {}, R"({"stage":"proxies"})");
    (void)p.addMetrics({{k.proxy, "public-validation-auc", "", 0.98}}).value();
    (void)p.storeWeights(k.proxy, "proxy", {1.0f, 2.0f}).value();
    done(k.proxy);

    k.dpMixture = start("dp-mixmin", 1.0, {mixtureEntry()});
    (void)p.addLambda({k.dpMixture, "private", names, {0.7, 0.3}}).value();
    (void)p.addLambda({k.dpMixture, "non-private", names, {0.8, 0.2}}).value();
    (void)p.addLambda({k.dpMixture, "uniform", names, {0.5, 0.5}}).value();
    (void)p
        .addMetrics({{k.dpMixture, "cosine-to-lambda-star", "", 0.99},
                     {k.dpMixture, "l1-to-lambda-star", "", 0.2},
                     {k.dpMixture, "sigma", "", 8.0},
                     // the ledger's own ε, as the pipeline reports it (reading commands compare the two)
                     {k.dpMixture, "epsilon-spent", "", mixtureEntry().epsilon}})
        .value();
    (void)p.addCurve(k.dpMixture, "lambda/ab", {{0, 0.5}, {50, 0.6}, {100, 0.7}}).value();
    (void)p.addCurve(k.dpMixture, "lambda/cd", {{0, 0.5}, {50, 0.4}, {100, 0.3}}).value();
    done(k.dpMixture);

    k.dpDownstream = start("dp-mixmin", 1.0, {mixtureEntry(), finetuneEntry()},
                           R"({"stage":"downstream","rho":0.1,"randomness":"secret"})");
    (void)p.addLambda({k.dpDownstream, "private", names, {0.7, 0.3}}).value();
    (void)p
        .addMetrics({{k.dpDownstream, "test-auc", "ac", 0.91},
                     {k.dpDownstream, "pretrained-test-auc", "ac", 0.85},
                     {k.dpDownstream, "finetune-noise", "", 1.0}})
        .value();
    (void)p.storeWeights(k.dpDownstream, "finetuned", {3.0f, 4.0f, 5.0f}).value();
    (void)p.addLog(k.dpDownstream, "info", "clipped 97% of the sampled examples").value();
    done(k.dpDownstream);

    k.uniformMixture = start("uniform", std::nullopt, {}, R"({"stage":"mixture"})");
    (void)p.recordLedger(k.uniformMixture, privacy::Ledger()).value();
    (void)p.addLambda({k.uniformMixture, "uniform", names, {0.5, 0.5}}).value();
    (void)p.addMetrics({{k.uniformMixture, "cosine-to-lambda-star", "", 0.7}}).value();
    done(k.uniformMixture);

    k.lambdaStar =
        start("non-private-mixmin", std::nullopt, {privacy::nonPrivateEntry("mixture", "A", "lambda* without DP")});
    (void)p.addLambda({k.lambdaStar, "non-private", names, {0.8, 0.2}}).value();
    (void)p.addMetrics({{k.lambdaStar, "frank-wolfe-gap", "", 1e-7}}).value();
    done(k.lambdaStar);

    k.randomSearch =
        start("random-search", std::nullopt, {privacy::nonPrivateEntry("random-search", "A", "best of 100")});
    (void)p.addLambda({k.randomSearch, "random-search", names, {0.6, 0.4}}).value();
    done(k.randomSearch);

    k.audit = start("audit", 1.0, {mixtureEntry(privacy::RandomnessMode::Seeded)}, R"({"stage":"audit"})");
    AuditRecord audit;
    audit.runId = k.audit;
    audit.name = "max-clip";
    audit.counts = {10, 20, 1000, 1000};
    audit.delta = 1e-5;
    audit.epsilonLowerBound = 0.1;
    (void)p.addAudit(audit).value();
    (void)p.addMetrics({{k.audit, "epsilon-lower-bound", "", 0.1}}).value();
    done(k.audit);

    k.dirichlet = start("uniform", 1.0, {privacy::dirichletEntry("finetune", "train", 2.0, 0.5, 0.01, 100, 1e-5)},
                        R"({"stage":"downstream","finetune_mechanism":"dirichlet"})");
    (void)p.storeWeights(k.dirichlet, "finetuned", {6.0f}).value();
    done(k.dirichlet);

    k.seeded = start("dp-mixmin", 1.0, {mixtureEntry(privacy::RandomnessMode::Seeded)},
                     R"({"stage":"mixture","rho":0.1,"randomness":"seeded"})");
    (void)p.addLambda({k.seeded, "private", names, {0.65, 0.35}}).value();
    done(k.seeded);

    k.sweep = start("epsilon-sweep", 1.0, {}, R"({"stage":"epsilon-sweep"})");
    (void)p.addMetrics({{k.sweep, "cosine-to-lambda-star", "", 0.95}}).value();
    done(k.sweep);

    k.failed = start("dp-mixmin", 2.0, {mixtureEntry()});
    (void)p.setRunStatus(k.failed, RunStatus::Failed, "stopped").value();
    return k;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

class TestReleaseExport : public QObject {
    Q_OBJECT
    TempDir dir_;

    std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

    ProjectFile fresh(const std::string& name) {
        auto spec = testing::tinySpec();
        spec.publicSources[0].written.path = "/home/analyst/public/images.idx";  // an absolute, local path
        return ProjectFile::create(path(name), spec, testing::tinyFacts()).value();
    }

private Q_SLOTS:
    void anEmptyProjectHoldsTheSensitiveContentHash() {
        auto p = fresh("empty.dpmix");
        const auto v = trustVerdict(p).value();
        QVERIFY(!v.release);
        QVERIFY(!v.dpOnly);
        QCOMPARE(v.nonPrivate.size(), std::size_t(1));
        QVERIFY(contains(v.nonPrivate[0], "content hash"));
        QVERIFY(contains(v.headline(), "keep inside the data owner's trust boundary"));
    }

    void theVerdictNamesEveryNonPrivateKind() {
        auto p = fresh("every.dpmix");
        const EveryKind k = storeEveryKind(p);
        const auto v = trustVerdict(p).value();
        QVERIFY(!v.dpOnly);
        const std::string h = v.headline();
        for (const char* part : {"lambda* (non-private MixMin)", "Random Search's choice", "non-private baselines",
                                 "test metrics", "audits", "experiments", "seeded (reproducible) runs", "content hash",
                                 "run logs", "statistics no ledger covers: cosine-to-lambda-star, epsilon-lower-bound"})
            QVERIFY2(contains(h, part), (std::string(part) + " missing from: " + h).c_str());
        QVERIFY2(contains(h, "test metrics (run " + std::to_string(k.dpDownstream) + ")"), h.c_str());
    }

    void theReleaseHoldsExactlyTheChosenRunsOutputs() {
        auto p = fresh("source.dpmix");
        const EveryKind k = storeEveryKind(p);
        const std::string r = path("release.dpmix");
        auto exported = exportRelease(p, r, {{k.proxy, k.dpMixture, k.dpDownstream}});
        QVERIFY2(exported.ok(), exported.ok() ? "" : exported.error().message.c_str());

        // spec: no local path; the sensitive source's path withheld.
        const std::string spec = rawText(r, "SELECT spec_json FROM spec");
        QVERIFY(!contains(spec, "/home/analyst"));
        QVERIFY(!contains(spec, "private/images.idx"));
        QVERIFY(contains(spec, "images.idx"));
        // sources: the public hash kept, the sensitive one's gone; its labels are the declared ones.
        QCOMPARE(rawText(r, "SELECT content_hash FROM sources WHERE role = 'public'"), std::string(64, 'a'));
        QCOMPARE(rawText(r, "SELECT content_hash FROM sources WHERE role = 'sensitive'"), std::string());
        QCOMPARE(rawText(r, "SELECT label_names_json FROM sources WHERE role = 'sensitive'"),
                 std::string(R"(["a","b","c","d"])"));
        QVERIFY(!contains(rawText(r, "SELECT group_concat(path || options_json) FROM sources"), "/home/analyst"));
        // runs: exactly the chosen ones, done, with no owner.
        QCOMPARE(column(r, "runs", "id"),
                 std::to_string(k.proxy) + "|" + std::to_string(k.dpMixture) + "|" + std::to_string(k.dpDownstream));
        QCOMPARE(rawInteger(r, "SELECT count(*) FROM runs WHERE status = 'done' AND owner_pid IS NULL"), 3LL);
        // ledgers: one per DP run, all secret.
        QCOMPARE(rawInteger(r, "SELECT count(*) FROM ledgers"), 2LL);
        QVERIFY(!contains(column(r, "ledgers", "ledger_json"), "\"seeded\""));
        // λ: the DP one (twice: both runs) and uniform; never λ* or Random Search's.
        QCOMPARE(distinct(r, "lambdas", "kind"), (std::set<std::string>{"private", "uniform"}));
        QCOMPARE(rawInteger(r, "SELECT count(*) FROM lambdas"), 3LL);
        // metrics: σ, ε spent, the fine-tuning noise and the proxy's public AUC; no test metric.
        QCOMPARE(distinct(r, "metrics", "name"),
                 (std::set<std::string>{"public-validation-auc", "sigma", "epsilon-spent", "finetune-noise"}));
        // curves: the λ trajectory, all of it.
        QCOMPARE(distinct(r, "curves", "name"), (std::set<std::string>{"lambda/ab", "lambda/cd"}));
        QCOMPARE(rawInteger(r, "SELECT count(*) FROM curves"), 6LL);
        QCOMPARE(rawInteger(r, "SELECT count(*) FROM audits"), 0LL);
        QCOMPARE(rawInteger(r, "SELECT count(*) FROM logs"), 0LL);
        QCOMPARE(distinct(r, "models", "name"), (std::set<std::string>{"proxy", "finetuned"}));
        QCOMPARE(rawInteger(r, "SELECT count(*) FROM release"), 1LL);
        // The model files travel with it, content-checked.
        for (const auto& m : distinct(r, "models", "file_name"))
            QVERIFY(std::filesystem::exists(path("release.models/" + m)));

        auto opened = ProjectFile::open(r);
        QVERIFY(opened.ok());
        QVERIFY(opened->isRelease());
        QVERIFY(opened->readOnly());
        QVERIFY(opened->verifyChain()->ok);
        const auto v = trustVerdict(*opened).value();
        QVERIFY2(v.dpOnly, v.headline().c_str());
        QVERIFY(v.release);
        QVERIFY(contains(v.headline(), "DP release: contains only DP releases"));
        // One ρ split: mixture on A twice (sequential) against fine-tuning on B: the manifest's
        // total is the budget of the two runs, and the release file recomputes the same.
        const auto m = releaseManifestFromJson(opened->releaseManifestJson()).value();
        QCOMPARE(m.releases, 3LL);
        DPMIX_COMPARE_NEAR(m.epsilon, v.epsilon, 1e-12);
        QVERIFY(m.epsilon > mixtureEntry().epsilon);  // two mixture releases on A compose
    }

    void oneReleaseCarriesItsEntrysEpsilon() {
        auto p = fresh("one.dpmix");
        const EveryKind k = storeEveryKind(p);
        auto exported = exportRelease(p, path("one-release.dpmix"), {{k.dpMixture}});
        QVERIFY(exported.ok());
        // Recomputed from the entry's parameters alone, not from the code that composed it.
        DPMIX_COMPARE_NEAR(exported->manifest.epsilon, privacy::recomputeEpsilon(mixtureEntry()), 1e-9);
        QCOMPARE(exported->manifest.delta, 1e-5);
    }

    void testMetricsOnlyWhenAskedAndThenStated() {
        auto p = fresh("tm.dpmix");
        const EveryKind k = storeEveryKind(p);
        ReleaseOptions o{{k.dpDownstream}};
        o.includeTestMetrics = true;
        QVERIFY(exportRelease(p, path("tm-release.dpmix"), o).ok());
        QCOMPARE(distinct(path("tm-release.dpmix"), "metrics", "name"),
                 (std::set<std::string>{"test-auc", "pretrained-test-auc", "finetune-noise"}));
        const auto v = trustVerdict(ProjectFile::open(path("tm-release.dpmix")).value()).value();
        QVERIFY(v.dpOnly);
        QVERIFY(v.testMetrics);
        QVERIFY(contains(v.headline(), "NOT covered by the guarantee"));
        QVERIFY(contains(v.shortLabel(), "test metrics not covered"));
    }

    void refusalsChangeNothingOnDisk() {
        auto p = fresh("refuse.dpmix");
        const EveryKind k = storeEveryKind(p);
        const std::string r = path("refused.dpmix");
        struct Case {
            long long run;
            const char* why;
        } cases[] = {{k.seeded, "reproducible mode"},  {k.lambdaStar, "not private"},
                     {k.randomSearch, "not private"},  {k.audit, "an audit"},
                     {k.sweep, "an experiment"},       {k.failed, "it is failed"},
                     {k.dirichlet, "not established"}, {9999, "no such run"}};
        for (const auto& c : cases) {
            auto e = exportRelease(p, r, {{k.dpMixture, c.run}});
            QVERIFY(!e.ok());
            QVERIFY2(contains(e.error().message, c.why), e.error().message.c_str());
            QVERIFY2(contains(e.error().message, "nothing was exported"), e.error().message.c_str());
            QVERIFY(!std::filesystem::exists(r));
            QVERIFY(!std::filesystem::exists(path("refused.models")));
        }
        QVERIFY(!exportRelease(p, r, {{}}).ok());
        QVERIFY(!exportRelease(p, p.path(), {{k.dpMixture}}).ok());  // never over the project itself
        // A file that exists is kept unless replacing was asked for.
        testing::writeBytes(r, "keep me");
        QVERIFY(!exportRelease(p, r, {{k.dpMixture}}).ok());
        QCOMPARE(testing::readBytes(r), std::string("keep me"));
        QVERIFY(exportRelease(p, r, {{k.dpMixture}, false, {}, true}).ok());
        QVERIFY(ProjectFile::open(r)->isRelease());
    }

    void anUnestablishedGuaranteeNeedsAReasonThatIsRecorded() {
        auto p = fresh("dir.dpmix");
        const EveryKind k = storeEveryKind(p);
        ReleaseOptions o{{k.dirichlet}};
        o.confirmUnestablished = {{k.dirichlet, "   "}};
        QVERIFY(!exportRelease(p, path("dir-release.dpmix"), o).ok());
        o.confirmUnestablished = {{k.dpMixture, "not chosen"}};
        QVERIFY(!exportRelease(p, path("dir-release.dpmix"), o).ok());
        o.confirmUnestablished = {{k.dirichlet, "the ethics board accepted the authors' analysis"}};
        auto e = exportRelease(p, path("dir-release.dpmix"), o);
        QVERIFY2(e.ok(), e.ok() ? "" : e.error().message.c_str());
        const auto opened = ProjectFile::open(path("dir-release.dpmix")).value();
        const auto m = releaseManifestFromJson(opened.releaseManifestJson()).value();
        QCOMPARE(m.unestablished.size(), std::size_t(1));
        QCOMPARE(m.unestablished[0].reason, std::string("the ethics board accepted the authors' analysis"));
        QVERIFY(contains(trustVerdict(opened)->headline(), "only claimed by its authors"));
    }

    void aReleaseIsReadOnlyAndTamperEvident() {
        auto p = fresh("ro.dpmix");
        const EveryKind k = storeEveryKind(p);
        const std::string r = path("ro-release.dpmix");
        QVERIFY(exportRelease(p, r, {{k.dpMixture}}).ok());
        {
            auto opened = ProjectFile::open(r).value();
            auto added = opened.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"});
            QVERIFY(!added.ok());
            QVERIFY2(contains(added.error().message, "DP release"), added.error().message.c_str());
            QVERIFY(!exportRelease(opened, path("again.dpmix"), {{k.dpMixture}}).ok());
        }
        auto rw = ProjectFile::open(r, OpenMode::ReadWrite);
        QVERIFY(!rw.ok());
        QVERIFY(contains(rw.error().message, "opens read-only"));
        rawExec(r,
                "UPDATE release SET manifest_json = replace(manifest_json, '\"includes_test_metrics\": false', "
                "'\"includes_test_metrics\": true')");
        auto chain = ProjectFile::open(r)->verifyChain().value();
        QVERIFY(!chain.ok);
        QCOMPARE(chain.firstBreak->table, std::string("release"));
    }

    void aProjectReadWithoutMigratingHasNoReleaseTable() {
        auto p = fresh("v3.dpmix");
        storeEveryKind(p);
        const std::string f = p.path().string();
        { ProjectFile closing = std::move(p); }
        rawExec(f, "DROP TABLE release; PRAGMA user_version = 3;");
        auto opened = ProjectFile::open(f, OpenMode::ReadOnly);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
        QVERIFY(!opened->isRelease());
        QVERIFY(opened->verifyChain()->ok);
    }
};

QTEST_APPLESS_MAIN(TestReleaseExport)
#include "tst_release_export.moc"
