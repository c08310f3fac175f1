// The .dpmix file: schema creation, round trips of spec/sources/runs/ledgers/results, refusal
// of foreign or newer files, and tamper detection through the hash chain.
#include "engine/core/version.h"
#include "engine/data/sha256.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_file.h"
#include "engine/project/schema.h"
#include "engine/project/spec_json.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <unistd.h>

using namespace dpmix;
using namespace dpmix::project;
using namespace dpmix::project::testing;
using dpmix::test_support::TempDir;
namespace fs = std::filesystem;

class TestProjectFile : public QObject {
    Q_OBJECT

    TempDir dir_;
    std::string file(const char* name) const { return (fs::path(dir_.path()) / name).string(); }

    ProjectFile makeProject(const char* name) {
        auto p = ProjectFile::create(file(name), tinySpec(), tinyFacts());
        if (!p) throw std::runtime_error("create failed: " + p.error().message);
        return std::move(p).value();
    }

    std::vector<std::string> filesInDir(const std::string& folder) {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void createsCurrentSchema() {
        const std::string f = file("schema.dpmix");
        { auto p = makeProject("schema.dpmix"); }
        QCOMPARE(rawInteger(f, "PRAGMA user_version"), kSchemaVersion);
        QCOMPARE(rawInteger(f, "PRAGMA application_id"), 0x44504D58LL);
        for (const char* table :
             {"spec", "sources", "runs", "ledgers", "lambdas", "metrics", "curves", "audits", "logs", "models"})
            QCOMPARE(rawInteger(f, std::string("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='") +
                                       table + "'"),
                     1LL);
        // WAL is a property of the file (byte 18 of the header is 2 for WAL).
        const std::string header = readBytes(f).substr(0, 20);
        QCOMPARE(int(header[18]), 2);
        QVERIFY(!fs::exists(f + ".tmp-" + std::to_string(::getpid())));
    }

    void specAndSourcesRoundTrip() {
        auto p = makeProject("spec.dpmix");
        const ProjectSpec expected = tinySpec();
        QCOMPARE(p.specJson(), projectSpecToJson(expected));
        QCOMPARE(p.spec().name, expected.name);
        QCOMPARE(p.spec().publicTasks.size(), std::size_t(2));
        QCOMPARE(p.spec().publicTasks[1].classes, (std::vector<std::string>{"c", "d"}));
        QCOMPARE(p.spec().privacy.epsilons, (std::vector<double>{1.0, 2.0}));
        QCOMPARE(p.spec().privacy.delta, 1e-5);
        QCOMPARE(p.spec().sensitive.written.options.at("classes"), std::string("a,b,c,d"));
        QCOMPARE(p.spec().seeds, (std::vector<long long>{0, 1}));
        QCOMPARE(p.createdBy(), versionString());
        auto sources = p.sources();
        QVERIFY(sources.ok());
        QCOMPARE(sources->size(), std::size_t(2));
        QCOMPARE(nameOf((*sources)[0].role), std::string("public"));
        QCOMPARE(nameOf((*sources)[1].role), std::string("sensitive"));
        QCOMPARE((*sources)[0].facts.examples, 60LL);
        QCOMPARE((*sources)[1].facts.contentHash, std::string(64, 'b'));
        QCOMPARE((*sources)[0].facts.labelNames, (std::vector<std::string>{"a", "b", "c", "d"}));
        QCOMPARE((*sources)[0].facts.height, 4);
    }

    void refusesToOverwrite() {
        makeProject("twice.dpmix");
        const std::string before = readBytes(file("twice.dpmix"));
        auto again = ProjectFile::create(file("twice.dpmix"), tinySpec(), tinyFacts());
        QVERIFY(!again.ok());
        QVERIFY(again.error().message.find("already exists") != std::string::npos);
        QCOMPARE(readBytes(file("twice.dpmix")), before);
        auto replaced = ProjectFile::create(file("twice.dpmix"), tinySpec(), tinyFacts(), true);
        QVERIFY(replaced.ok());
    }

    // Create-if-absent (what `dpmix run SPEC.json` does): an existing project of the same
    // spec is opened, never replaced; one of another spec is refused.
    void createOrOpenNeverReplaces() {
        bool created = false;
        auto first = ProjectFile::createOrOpen(file("either.dpmix"), tinySpec(), tinyFacts(), &created);
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
        QVERIFY(created);
        ProjectFile p = std::move(first).value();
        const long long run = *p.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"});
        auto second = ProjectFile::createOrOpen(file("either.dpmix"), tinySpec(), tinyFacts(), &created);
        QVERIFY(second.ok());
        QVERIFY(!created);
        QVERIFY(second->run(run).ok());  // the same file, with its run
        ProjectSpec other = tinySpec();
        other.seeds = {5};
        auto third = ProjectFile::createOrOpen(file("either.dpmix"), other, tinyFacts(), &created);
        QVERIFY(!third.ok());
        QVERIFY2(third.error().message.find("created from a different spec") != std::string::npos,
                 third.error().message.c_str());
        QVERIFY(p.run(run).ok());
    }

    // The -wal of an earlier project of the same name, deleted without it, must not be
    // replayed into a new project: it is cleared, under the folder lock, before publishing.
    void orphanWalIsNotReplayedIntoANewProject() {
        TempDir own;
        const std::string a = own.path() + "/a.dpmix", b = own.path() + "/b.dpmix";
        auto writer = ProjectFile::create(a, tinySpec(), tinyFacts());
        QVERIFY(writer.ok());
        ProjectFile w = std::move(writer).value();
        QVERIFY(w.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"}).ok());
        QVERIFY(fs::file_size(a + "-wal") > 0);
        fs::copy_file(a + "-wal", b + "-wal");  // b.dpmix itself does not exist
        auto created = ProjectFile::create(b, tinySpec(), tinyFacts());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        QCOMPARE(created->runs()->size(), std::size_t(0));
        QCOMPARE(rawText(b, "PRAGMA integrity_check"), std::string("ok"));
    }

    // A write that cannot get the lock within the busy timeout fails clearly and stores nothing.
    void busyProjectFailsClearly() {
        auto p = makeProject("busy.dpmix");
        sqlite3* other = nullptr;
        QCOMPARE(sqlite3_open_v2(p.path().c_str(), &other, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
        QCOMPARE(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr),
                 SQLITE_OK);  // another process writing
        p.setBusyTimeout(100);
        auto r = p.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"});
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("project busy: another dpmix process holds busy.dpmix; try again") !=
                     std::string::npos,
                 r.error().message.c_str());
        QCOMPARE(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(other);
        QCOMPARE(p.runs()->size(), std::size_t(0));                 // nothing half-written
        QVERIFY(p.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"}).ok());  // and free again
    }

    // A NaN or infinite λ weight, metric or model weight is refused with an error naming it; the run is marked failed
    // and can never become done (docs/PROJECT_FILE.md, "Finite results").
    void nonFiniteResultsAreRefused() {
        auto p = makeProject("nonfinite.dpmix");
        auto started = [&](long long seed) {
            const long long id = *p.addRun({"dp-mixmin", "ac", 1.0, seed, "{}"});
            (void)p.setRunStatus(id, RunStatus::Running).value();
            return id;
        };
        const long long lambdaRun = started(0);
        auto l = p.addLambda({lambdaRun, "private", {"ab", "cd"}, {0.5, std::nan("")}});
        QVERIFY(!l.ok());
        QVERIFY2(l.error().message.find("refused to store λ (private): weight 1 (cd) is nan, not a finite number") !=
                     std::string::npos,
                 l.error().message.c_str());
        QVERIFY2(l.error().message.find("the run is marked failed") != std::string::npos, l.error().message.c_str());
        QCOMPARE(p.lambdas(lambdaRun)->size(), std::size_t(0));
        QCOMPARE(toString(p.run(lambdaRun)->status), std::string("failed"));
        QVERIFY(!p.setRunStatus(lambdaRun, RunStatus::Done).ok());

        const long long metricRun = started(1);
        auto m = p.addMetrics({{metricRun, "auc", "", 0.5}, {metricRun, "macro-auc", "", HUGE_VAL}});
        QVERIFY(!m.ok());
        QVERIFY2(m.error().message.find("metric \"macro-auc\" is inf") != std::string::npos, m.error().message.c_str());
        QCOMPARE(p.metrics(metricRun)->size(), std::size_t(0));  // all or nothing
        QCOMPARE(toString(p.run(metricRun)->status), std::string("failed"));

        const long long modelRun = started(2);
        std::vector<float> weights(100, 0.25f);
        weights[7] = -std::numeric_limits<float>::infinity();
        auto w = p.storeWeights(modelRun, "finetuned", weights);
        QVERIFY(!w.ok());
        QVERIFY2(
            w.error().message.find("model \"finetuned\": 1 of 100 weights are not finite (the first, 7, is -inf)") !=
                std::string::npos,
            w.error().message.c_str());
        QVERIFY(!fs::exists(p.modelsDir()) || fs::is_empty(p.modelsDir()));
        QCOMPARE(toString(p.run(modelRun)->status), std::string("failed"));

        // Finite weights are stored in the native float layout.
        const long long goodRun = started(3);
        weights[7] = 1.5f;
        auto stored = p.storeWeights(goodRun, "finetuned", weights);
        QVERIFY(stored.ok());
        const std::string bytes = p.loadModel(*stored).value();
        QCOMPARE(bytes.size(), weights.size() * sizeof(float));
        QCOMPARE(std::memcmp(bytes.data(), weights.data(), bytes.size()), 0);
        QVERIFY(p.setRunStatus(goodRun, RunStatus::Done).ok());

        QVERIFY(p.verifyChain()->ok);  // refusals wrote nothing but status changes
        // A NULL metric written behind the API (an older dpmix) still keeps the run from done.
        const long long legacyRun = started(4);
        rawExec(p.path().string(), "INSERT INTO metrics(run_id, name, class_name, value) VALUES(" +
                                       std::to_string(legacyRun) + ", 'auc', '', NULL)");
        resealBehindTheApi(p.path().string());  // else the write below is refused as an alteration
        auto done = p.setRunStatus(legacyRun, RunStatus::Done);
        QVERIFY(!done.ok());
        QVERIFY2(done.error().message.find("a metric that is not a number") != std::string::npos,
                 done.error().message.c_str());
        QCOMPARE(toString(p.run(legacyRun)->status), std::string("failed"));

        // A ledger whose ε is NaN (its accountant overflowed): the ledger is kept, the run is not done.
        const long long ledgerRun = started(5);
        privacy::Ledger ledger;
        ledger.record(privacy::nonPrivateEntry("mixture", "A", "test"));
        QVERIFY(p.recordLedger(ledgerRun, ledger, std::nan("")).ok());
        QVERIFY(!p.setRunStatus(ledgerRun, RunStatus::Done).ok());
        QCOMPARE(toString(p.run(ledgerRun)->status), std::string("failed"));
        QCOMPARE(p.ledgers(ledgerRun)->size(), std::size_t(1));
        // ε = ∞ (a non-private method) is a number: that run may be done.
        const long long infiniteRun = started(6);
        QVERIFY(p.recordLedger(infiniteRun, ledger).ok());
        QVERIFY(p.setRunStatus(infiniteRun, RunStatus::Done).ok());
    }

    void taskClassesMustBeLabels() {
        ProjectSpec spec = tinySpec();
        spec.publicTasks[1].classes = {"c", "z"};
        auto p = ProjectFile::create(file("badtask.dpmix"), spec, tinyFacts());
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message.find("tasks.public[1].classes[1]: \"z\"") != std::string::npos,
                 p.error().message.c_str());
        QVERIFY(!fs::exists(file("badtask.dpmix")));
        spec = tinySpec();
        spec.sensitive.userLevel = true;  // facts have no users
        p = ProjectFile::create(file("baduser.dpmix"), spec, tinyFacts());
        QVERIFY(!p.ok());
        QVERIFY(p.error().message.find("sensitive.user_level") != std::string::npos);
        QVERIFY(!fs::exists(file("baduser.dpmix")));
    }

    void runsAndStatusTransitions() {
        auto p = makeProject("runs.dpmix");
        auto id = p.addRun({"dp-mixmin", "ac", 1.0, 7, R"({"clip":13})"});
        QVERIFY(id.ok());
        auto r = p.run(*id);
        QVERIFY(r.ok());
        QCOMPARE(r->method, std::string("dp-mixmin"));
        QCOMPARE(r->task, std::string("ac"));
        QCOMPARE(*r->epsilon, 1.0);
        QCOMPARE(r->seed, 7LL);
        QCOMPARE(r->configJson, std::string(R"({"clip":13})"));
        QCOMPARE(toString(r->status), toString(RunStatus::Queued));
        QCOMPARE(r->buildVersion, versionString());
        QVERIFY(r->startedAt.empty());
        auto running = p.setRunStatus(*id, RunStatus::Running);
        QVERIFY(running.ok());
        QCOMPARE(toString(running->status), toString(RunStatus::Running));
        QVERIFY(!running->startedAt.empty());
        QVERIFY(running->finishedAt.empty());
        auto back = p.setRunStatus(*id, RunStatus::Queued);
        QVERIFY(!back.ok());
        QVERIFY2(back.error().message.find("is running; it cannot become queued") != std::string::npos,
                 back.error().message.c_str());
        auto done = p.setRunStatus(*id, RunStatus::Failed, "out of memory");
        QVERIFY(done.ok());
        QCOMPARE(done->message, std::string("out of memory"));
        QVERIFY(!done->finishedAt.empty());
        QVERIFY(!p.setRunStatus(*id, RunStatus::Running).ok());  // finished runs stay finished
        auto nonPrivate = p.addRun({"non-private-mixmin", "", std::nullopt, 0, "{}"});
        QVERIFY(nonPrivate.ok());
        QVERIFY(!p.run(*nonPrivate)->epsilon.has_value());
        QCOMPARE(p.runs()->size(), std::size_t(2));
        QVERIFY(!p.setRunStatus(999, RunStatus::Running).ok());
        QVERIFY(!p.addRun({"", "", 1.0, 0, "{}"}).ok());
        QVERIFY(!p.addRun({"x", "", 1.0, 0, "{not json"}).ok());
    }

    void ledgerRoundTrip() {
        auto p = makeProject("ledger.dpmix");
        const long long run = *p.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"});
        privacy::Ledger ledger(privacy::Composition::Parallel);
        privacy::LedgerEntry e;
        e.stage = "mixture";
        e.split = "A";
        e.q = 0.25;
        e.steps = 100;
        e.sigma = 1.5;
        e.clipNorm = 13;
        e.delta = 1e-5;
        e.epsilon = 0.8125;
        e.accountant = "test";
        ledger.record(e);
        ledger.record(privacy::nonPrivateEntry("random-search", "A", "selects λ non-privately"));
        auto id = p.recordLedger(run, ledger, 0.9);
        QVERIFY(id.ok());
        auto stored = p.ledgers(run);
        QVERIFY(stored.ok());
        QCOMPARE(stored->size(), std::size_t(1));
        QCOMPARE((*stored)[0].recordedEpsilon, 0.9);
        auto back = privacy::ledgerFromJson((*stored)[0].ledgerJson);
        QVERIFY(back.ok());
        QCOMPARE(back->entries().size(), std::size_t(2));
        QCOMPARE(back->entries()[0].sigma, 1.5);
        QCOMPARE(back->entries()[0].q, 0.25);
        QCOMPARE(back->entries()[0].steps, 100LL);
        QCOMPARE(back->entries()[0].epsilon, 0.8125);
        QVERIFY(std::isinf(back->entries()[1].epsilon));
        // Without a reported total, the ledger's own total is recorded: here ∞ (non-private entry).
        auto second = p.recordLedger(run, ledger);
        QVERIFY(second.ok());
        QVERIFY(std::isinf(p.ledgers(run).value()[1].recordedEpsilon));
        QVERIFY(!p.recordLedger(12345, ledger).ok());
    }

    void resultsRoundTrip() {
        auto p = makeProject("results.dpmix");
        const long long run = *p.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"});
        QVERIFY(p.addLambda({run, "private", {"ab", "cd"}, {0.25, 0.75}}).ok());
        QVERIFY(p.addLambda({run, "non-private", {"ab", "cd"}, {0.1, 0.9}}).ok());
        QVERIFY(p.addLambda({run, "uniform", {"ab", "cd"}, {0.5, 0.5}}).ok());
        QVERIFY(!p.addLambda({run, "private", {"ab"}, {0.5, 0.5}}).ok());
        QVERIFY(
            p.addMetrics({{run, "auc", "a", 0.8125}, {run, "auc", "c", 0.625}, {run, "macro-auc", "", 0.71875}}).ok());
        QVERIFY(p.addCurve(run, "loss", {{0, 0.69}, {10, 0.5}, {20, 0.25}}).ok());
        QVERIFY(p.addCurve(run, "epsilon", {{0, 0.0}, {20, 1.0}}).ok());
        privacy::AuditCounts counts{3, 5, 100, 100};
        QVERIFY(p.addAudit({run, "natural-canary", counts, 1e-5, 0.95, 0.5, R"({"canary":"x"})"}).ok());
        QVERIFY(p.addLog(run, "info", "λ learned").ok());

        auto lambdas = p.lambdas(run);
        QCOMPARE(lambdas->size(), std::size_t(3));
        QCOMPARE((*lambdas)[0].kind, std::string("private"));
        QCOMPARE((*lambdas)[0].values, (std::vector<double>{0.25, 0.75}));
        QCOMPARE((*lambdas)[1].values, (std::vector<double>{0.1, 0.9}));  // exact: JSON keeps round-trip digits
        QCOMPARE((*lambdas)[2].names, (std::vector<std::string>{"ab", "cd"}));
        auto metrics = p.metrics(run);
        QCOMPARE(metrics->size(), std::size_t(3));
        QCOMPARE((*metrics)[1].className, std::string("c"));
        QCOMPARE((*metrics)[1].value, 0.625);
        QCOMPARE((*metrics)[2].className, std::string());
        QCOMPARE(p.curveNames(run).value(), (std::vector<std::string>{"loss", "epsilon"}));
        auto loss = p.curve(run, "loss").value();
        QCOMPARE(loss.size(), std::size_t(3));
        QCOMPARE(loss[1].step, 10LL);
        QCOMPARE(loss[2].value, 0.25);
        auto audits = p.audits(run).value();
        QCOMPARE(audits.size(), std::size_t(1));
        QCOMPARE(audits[0].counts.falseNegatives, 5LL);
        QCOMPARE(audits[0].counts.positives, 100LL);
        QCOMPARE(audits[0].epsilonLowerBound, 0.5);
        QCOMPARE(audits[0].detailsJson, std::string(R"({"canary":"x"})"));
        auto logs = p.logs(run).value();
        QCOMPARE(logs.size(), std::size_t(1));
        QCOMPARE(logs[0].message, std::string("λ learned"));

        // Results survive closing and reopening.
        const std::string path = p.path().string();
        p = std::move(ProjectFile::open(path)).value();
        QCOMPARE(p.metrics(run)->size(), std::size_t(3));
        QVERIFY(p.verifyChain()->ok);
    }

    void failedWriteChangesNothing() {
        auto p = makeProject("atomic.dpmix");
        const long long run = *p.addRun({"dp-mixmin", "", 1.0, 0, "{}"});
        // The second metric names a run that does not exist: the whole call rolls back.
        auto r = p.addMetrics({{run, "auc", "a", 0.5}, {run + 100, "auc", "b", 0.5}});
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("does not exist") != std::string::npos, r.error().message.c_str());
        QCOMPARE(p.metrics(run)->size(), std::size_t(0));
        QVERIFY(!p.addCurve(run + 100, "loss", {{0, 1.0}}).ok());
        QCOMPARE(rawInteger(p.path().string(), "SELECT count(*) FROM curves"), 0LL);
    }

    void modelsAreContentAddressed() {
        auto p = makeProject("models.dpmix");
        const long long run = *p.addRun({"dp-mixmin", "", 1.0, 0, "{}"});
        const std::string bytes = "not a pickle: raw weights \x01\x02\x03";
        auto m = p.storeModel(run, "finetuned", bytes);
        QVERIFY(m.ok());
        QCOMPARE(m->contentHash, data::sha256Hex(bytes));
        QCOMPARE(m->bytes, static_cast<long long>(bytes.size()));
        const fs::path stored = p.modelsDir() / m->fileName;
        QVERIFY(fs::exists(stored));
        QCOMPARE(stored.parent_path().filename().string(), std::string("models.models"));
        QCOMPARE(p.loadModel(*m).value(), bytes);
        QCOMPARE(p.models(run)->size(), std::size_t(1));
        { std::ofstream(stored, std::ios::binary) << "changed"; }
        auto tampered = p.loadModel(*m);
        QVERIFY(!tampered.ok());
        QVERIFY(tampered.error().message.find("does not match") != std::string::npos);
    }

    void refusesNonSqlite() {
        const std::string f = file("text.dpmix");
        { std::ofstream(f) << "just some text, certainly not a database\n"; }
        auto p = ProjectFile::open(f);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message.find("not an SQLite database") != std::string::npos, p.error().message.c_str());
        QCOMPARE(readBytes(f), std::string("just some text, certainly not a database\n"));
        QVERIFY(!fs::exists(f + "-wal"));
        QVERIFY(!ProjectFile::open(file("missing.dpmix")).ok());
        QVERIFY(!fs::exists(file("missing.dpmix")));
    }

    void refusesForeignSqlite() {
        const std::string f = file("foreign.sqlite");
        rawExec(f, "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
        const std::string before = readBytes(f);
        auto p = ProjectFile::open(f);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message.find("not a dpmix project") != std::string::npos, p.error().message.c_str());
        QCOMPARE(readBytes(f), before);
    }

    void refusesNewerSchema() {
        TempDir own;
        const std::string f = own.path() + "/newer.dpmix";
        {
            auto p = ProjectFile::create(f, tinySpec(), tinyFacts());
            QVERIFY(p.ok());
        }
        // A future dpmix: schema 7, rollback journal so that reading leaves no side files.
        rawExec(f, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 7;");
        const std::string before = readBytes(f);
        const auto filesBefore = filesInDir(own.path());
        auto p = ProjectFile::open(f);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message.find("newer dpmix (schema version 7") != std::string::npos,
                 p.error().message.c_str());
        QCOMPARE(readBytes(f), before);
        QCOMPARE(filesInDir(own.path()), filesBefore);
    }

    void aStatusOutsideTheSchemaReadsAsInvalid() {
        auto p = makeProject("bad-status.dpmix");
        const long long run = *p.addRun({"dp-mixmin", "", 1.0, 0, "{}"});
        rawExec(
            p.path().string(),
            "PRAGMA ignore_check_constraints = ON; UPDATE runs SET status = 'bogus' WHERE id = " + std::to_string(run));
        const auto r = p.run(run).value();
        QVERIFY(r.status == RunStatus::Failed);  // never shown as queued (or any real state)
        QVERIFY2(r.message.find("invalid status 'bogus'") != std::string::npos, r.message.c_str());
    }

    void tamperedRowIsReported() {
        auto p = makeProject("tamper.dpmix");
        const long long run = *p.addRun({"dp-mixmin", "", 1.0, 0, "{}"});
        QVERIFY(p.addMetrics({{run, "auc", "a", 0.5}, {run, "auc", "b", 0.6}, {run, "auc", "c", 0.7}}).ok());
        QVERIFY(p.addCurve(run, "loss", {{0, 1.0}, {1, 0.5}}).ok());
        auto clean = p.verifyChain();
        QVERIFY(clean.ok() && clean->ok);
        // 1 spec + 2 sources + 1 run + 3 metrics + 2 curve points + the run's transition to queued.
        QCOMPARE(clean->rowsChecked, 10LL);
        const std::string path = p.path().string();

        rawExec(path, "UPDATE metrics SET value = 0.99 WHERE id = 2");
        auto v = p.verifyChain().value();
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBreak->table, std::string("metrics"));
        QCOMPARE(v.firstBreak->rowId, 2LL);

        rawExec(path, "UPDATE metrics SET value = 0.6 WHERE id = 2");  // restore: clean again
        QVERIFY(p.verifyChain()->ok);

        rawExec(path, "DELETE FROM metrics WHERE id = 2");  // a deletion breaks the next row
        v = p.verifyChain().value();
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBreak->table, std::string("metrics"));
        QCOMPARE(v.firstBreak->rowId, 3LL);
    }

    void tamperedRunIdentityAndLedgerAreReported() {
        auto p = makeProject("tamper2.dpmix");
        const long long run = *p.addRun({"dp-mixmin", "", 1.0, 0, "{}"});
        QVERIFY(p.setRunStatus(run, RunStatus::Running).ok());  // status changes keep the chain valid
        QVERIFY(p.verifyChain()->ok);
        const std::string path = p.path().string();
        rawExec(path, "UPDATE runs SET epsilon = 8.0 WHERE id = 1");
        auto v = p.verifyChain().value();
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBreak->table, std::string("runs"));
        QCOMPARE(v.firstBreak->rowId, 1LL);
        rawExec(path, "UPDATE runs SET epsilon = 1.0 WHERE id = 1");
        privacy::Ledger ledger;
        ledger.record(privacy::nonPrivateEntry("random-search", "A", "why"));
        QVERIFY(p.recordLedger(run, ledger, 1.0).ok());
        QVERIFY(p.verifyChain()->ok);
        rawExec(path, "UPDATE ledgers SET recorded_epsilon = 0.5");
        v = p.verifyChain().value();
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBreak->table, std::string("ledgers"));
        rawExec(path, "UPDATE ledgers SET recorded_epsilon = 1.0");
        rawExec(path, "UPDATE spec SET spec_json = replace(spec_json, '1e-05', '0.1')");
        v = p.verifyChain().value();
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBreak->table, std::string("spec"));
    }
};

QTEST_APPLESS_MAIN(TestProjectFile)
#include "tst_project_file.moc"
