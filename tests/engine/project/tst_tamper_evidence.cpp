// Tamper evidence that holds when whoever edits the file recomputes the hash chain (docs/PROJECT_FILE.md,
// "Tamper evidence"): a ledger's ε or σ edited is found by recomputing the ledger; a run's status flipped
// or the last run deleted is found by the seal and the run history; the trust verdict (the
// workbench's banner) says ALTERED; the owner's signature covers the file as signed; an older
// file is read without the seals and migrated forward.
#include "project_fixture.h"
#include "tests/support/unit_test.h"

#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/owner_key.h"
#include "engine/project/project_file.h"
#include "engine/project/trust_verdict.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <stdexcept>

using namespace dpmix;
using namespace dpmix::project;
using namespace dpmix::project::testing;
using dpmix::test_support::TempDir;

namespace {

bool anyContains(const std::vector<std::string>& lines, const std::string& needle) {
    for (const auto& l : lines)
        if (l.find(needle) != std::string::npos) return true;
    return false;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

// Rewrites ledger row `id` (bound, as a tamperer with sqlite3 would type it).
void rawSetLedger(const std::string& file, long long id, const std::string& ledgerJson, double recordedEpsilon) {
    sqlite3* db = nullptr;
    QVERIFY(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "UPDATE ledgers SET ledger_json = ?, recorded_epsilon = ? WHERE id = ?", -1, &s, nullptr);
    sqlite3_bind_text(s, 1, ledgerJson.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 2, recordedEpsilon);
    sqlite3_bind_int64(s, 3, id);
    QCOMPARE(sqlite3_step(s), SQLITE_DONE);
    sqlite3_finalize(s);
    sqlite3_close(db);
}

}  // namespace

class TestTamperEvidence : public QObject {
    Q_OBJECT
    TempDir dir_;
    int next_ = 0;

    // A project with two finished DP-MixMin runs (σ and ε spent reported as metrics, as the
    // pipeline stores them) and one failed run; the file closed, so raw edits see everything.
    std::string makeStudy() {
        const std::string f = dir_.filePath("study" + std::to_string(next_++) + ".dpmix");
        auto p = ProjectFile::create(f, tinySpec(), tinyFacts()).value();
        for (int i = 0; i < 2; ++i) {
            const long long id = p.addRun({"dp-mixmin", "ac", 1.0, i, "{}"}).value();
            privacy::Ledger ledger;
            const auto e =
                privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.1, 2.0, 10, 1e-6, 1.0);
            ledger.record(e);
            (void)p.recordLedger(id, ledger).value();
            (void)p.setRunStatus(id, RunStatus::Running).value();
            (void)p
                .addMetrics({{id, "sigma", "", 2.0}, {id, "epsilon-spent", "", e.epsilon}, {id, "test-auc", "ac", 0.8}})
                .value();
            (void)p.setRunStatus(id, RunStatus::Done).value();
        }
        const long long failed = p.addRun({"dp-mixmin", "ac", 1.0, 7, "{}"}).value();
        (void)p.setRunStatus(failed, RunStatus::Running).value();
        (void)p.setRunStatus(failed, RunStatus::Failed, "diverged").value();
        auto report = p.verifyIntegrity().value();
        // An untouched fixture must verify, or every tampering check below would prove nothing.
        if (!report.ok()) throw std::logic_error("fixture does not verify: " + joined(report.problems()));
        return f;
    }

    static IntegrityReport integrityOf(const std::string& f) {
        auto p = ProjectFile::open(f, OpenMode::ReadOnly);
        if (!p) throw std::runtime_error(p.error().message);
        return p->verifyIntegrity({true}).value();
    }

    static TrustVerdict verdictOf(const std::string& f) {
        auto p = ProjectFile::open(f, OpenMode::ReadOnly);
        return trustVerdict(*p).value();
    }

private Q_SLOTS:
    void intactStudyVerifies() {
        const std::string f = makeStudy();
        const auto r = integrityOf(f);
        QVERIFY2(r.ok(), joined(r.problems()).c_str());
        QVERIFY(r.seal.present);
        QVERIFY(r.summaryLine().find("hash chain ✓") == 0);
        QVERIFY(verdictOf(f).headline().find("ALTERED") == std::string::npos);
    }

    void resealedEpsilonEditIsReported() {
        const std::string f = makeStudy();
        const std::string json =
            rawText(f, "SELECT ledger_json FROM ledgers WHERE run_id = 1 ORDER BY id DESC LIMIT 1");
        auto ledger = privacy::ledgerFromJson(json).value();
        privacy::Ledger edited;
        auto entry = ledger.entries().front();
        entry.epsilon = 0.1;  // spent less, says the edit
        edited.record(entry);
        rawSetLedger(f, rawInteger(f, "SELECT max(id) FROM ledgers WHERE run_id = 1"), privacy::ledgerToJson(edited),
                     0.1);
        resealBehindTheApi(f);
        const auto r = integrityOf(f);
        QVERIFY(r.chain.ok);  // the chain was recomputed: it cannot tell
        QVERIFY(r.seal.ok);
        QVERIFY2(!r.ok() && anyContains(r.ledgerProblems, "run 1 ledger 1"), joined(r.problems()).c_str());
        const auto v = verdictOf(f);
        QVERIFY2(v.headline().rfind("ALTERED: run 1", 0) == 0, v.headline().c_str());
        QCOMPARE(v.shortLabel(), std::string("ALTERED: does not verify"));
    }

    void resealedSigmaEditIsReported() {
        const std::string f = makeStudy();
        const std::string json = rawText(f, "SELECT ledger_json FROM ledgers WHERE run_id = 2");
        auto ledger = privacy::ledgerFromJson(json).value();
        // σ edited alone, and σ edited with ε recomputed to match (a careful tamperer): the
        // first no longer recomputes, the second is not the σ the run reported.
        for (const bool consistent : {false, true}) {
            auto entry = ledger.entries().front();
            entry.sigma = 4.0;
            if (consistent) entry.epsilon = privacy::recomputeEpsilon(entry);
            privacy::Ledger edited;
            edited.record(entry);
            rawSetLedger(f, rawInteger(f, "SELECT max(id) FROM ledgers WHERE run_id = 2"),
                         privacy::ledgerToJson(edited), entry.epsilon);
            resealBehindTheApi(f);
            const auto r = integrityOf(f);
            QVERIFY(r.chain.ok && r.seal.ok);
            const std::string expected = consistent ? "reported noise multiplier sigma 2" : "run 2 ledger 1: entry 1";
            QVERIFY2(anyContains(r.ledgerProblems, expected), joined(r.problems()).c_str());
            QVERIFY(verdictOf(f).headline().rfind("ALTERED: run 2", 0) == 0);
        }
    }

    void statusFlipIsReported() {
        const std::string f = makeStudy();
        rawExec(f, "UPDATE runs SET status = 'done', message = '' WHERE id = 3");  // failed → done
        auto r = integrityOf(f);
        QVERIFY(r.chain.ok);  // status is outside the chain of `runs`
        QVERIFY2(anyContains(r.seal.problems, "status"), joined(r.problems()).c_str());
        QVERIFY(anyContains(r.transitions.problems, "run 3 is 'done', but its sealed history ends 'failed'"));
        QVERIFY(verdictOf(f).headline().rfind("ALTERED", 0) == 0);
        // Resealed as well: the run's sealed history still says failed.
        resealBehindTheApi(f);
        r = integrityOf(f);
        QVERIFY(r.seal.ok);
        QVERIFY2(anyContains(r.transitions.problems, "run 3 is 'done'"), joined(r.problems()).c_str());
        QVERIFY(verdictOf(f).headline().rfind("ALTERED", 0) == 0);
        // done → cancelled, hiding a result
        const std::string g = makeStudy();
        rawExec(g, "UPDATE runs SET status = 'cancelled' WHERE id = 2");
        QVERIFY(anyContains(integrityOf(g).transitions.problems, "run 2 is 'cancelled'"));
    }

    void deletedLastRunIsReported() {
        const std::string f = makeStudy();
        // The last DP run and every row of it: the rows that remain still chain.
        for (const char* table : {"ledgers", "metrics", "run_transitions"})
            rawExec(f, std::string("DELETE FROM ") + table + " WHERE run_id = 3");
        rawExec(f, "DELETE FROM runs WHERE id = 3");
        const auto r = integrityOf(f);
        QVERIFY(r.chain.ok);
        QVERIFY2(anyContains(r.seal.problems, "table runs: sealed with 3 rows, has 2 rows now (rows were deleted"),
                 joined(r.problems()).c_str());
        QVERIFY(r.summaryLine().find("hash chain ✓") == std::string::npos);
        QVERIFY(verdictOf(f).headline().rfind("ALTERED: seal", 0) == 0);
    }

    void writesToAnAlteredFileAreRefused() {
        const std::string f = makeStudy();
        rawExec(f, "DELETE FROM metrics WHERE id = (SELECT max(id) FROM metrics)");
        auto p = ProjectFile::open(f).value();
        auto added = p.addRun({"dp-mixmin", "ac", 1.0, 9, "{}"});
        QVERIFY(!added.ok());
        QVERIFY2(added.error().message.find("altered outside dpmix") != std::string::npos,
                 added.error().message.c_str());
        QVERIFY(!p.verifyIntegrity()->ok());  // the evidence stays
    }

    void olderFilesReadWithoutSealsAndMigrate() {
        const std::string f = makeStudy();
        rawExec(f,
                "PRAGMA journal_mode = DELETE; DROP TABLE run_transitions; DROP TABLE seal; DROP TABLE signatures; "
                "PRAGMA user_version = 5;");
        {
            auto r = integrityOf(f);  // read-only: not migrated, no failure
            QVERIFY(r.ok());
            QVERIFY(!r.seal.present);
            QVERIFY2(anyContains(r.notices(), "written before schema 6"), joined(r.notices()).c_str());
            QCOMPARE(rawInteger(f, "PRAGMA user_version"), 5LL);
        }
        {
            auto p = ProjectFile::open(f);  // read-write: migrated, each run's status its first transition
            QVERIFY(p.ok());
        }
        QCOMPARE(rawInteger(f, "PRAGMA user_version"), 6LL);
        QCOMPARE(rawInteger(f, "SELECT count(*) FROM run_transitions"), 3LL);
        const auto r = integrityOf(f);
        QVERIFY2(r.ok() && r.seal.present, joined(r.problems()).c_str());
        rawExec(f, "UPDATE runs SET status = 'done' WHERE id = 3");
        QVERIFY(!integrityOf(f).ok());
    }

    void ownerSignatureCoversTheFileAsSigned() {
        const std::string keys = dir_.filePath("keys");
        auto key = createOwnerKey(keys);
        QVERIFY2(key.ok(), key.ok() ? "" : key.error().message.c_str());
        struct stat st {};
        QCOMPARE(::stat((keys + "/owner.key").c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        QVERIFY(!createOwnerKey(keys).ok());  // never replaced
        QCOMPARE(loadOwnerKey(keys)->publicKey.bytes, key->publicKey.bytes);
        QCOMPARE(readPublicKeyFile(keys + "/owner.pub")->bytes, key->publicKey.bytes);

        const std::string f = makeStudy();
        {
            auto p = ProjectFile::open(f).value();
            QVERIFY(!p.sign(*key).has_value());
            auto r = p.verifyIntegrity().value();
            QCOMPARE(r.signatures.size(), std::size_t(1));
            QVERIFY(r.signatures[0].valid && r.signatures[0].current);
            QCOMPARE(r.signatures[0].signer.fingerprint(), key->publicKey.fingerprint());
            (void)p.addRun({"dp-mixmin", "ac", 1.0, 5, "{}"}).value();  // a later write: no longer covered
            r = p.verifyIntegrity().value();
            QVERIFY(r.signatures[0].valid && !r.signatures[0].current);
            QVERIFY(r.ok());  // a project goes on after signing: a notice, not a failure
            QVERIFY(anyContains(r.notices(), "sign it again"));
        }
        rawExec(f, "UPDATE signatures SET signed_at = '2020-01-01T00:00:00.000Z'");  // what it signs, edited
        const auto r = integrityOf(f);
        QVERIFY(!r.signatures[0].valid);
        QVERIFY(anyContains(r.problems(), "does not verify"));
    }
};

QTEST_APPLESS_MAIN(TestTamperEvidence)
#include "tst_tamper_evidence.moc"
