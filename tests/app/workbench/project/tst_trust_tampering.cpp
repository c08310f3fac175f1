// The workbench's trust summary over a tampered project (docs/PRIVACY.md, "Signed files"): a
// ledger's ε edited and the chain and seal recomputed, its σ edited likewise, a run's
// status flipped, the last run deleted with its rows — each read by loadProjectSnapshot, whose
// banner must say ALTERED first, and whose title label says the file does not verify. The
// untouched project says nothing of the kind.
#include "app/workbench/project/project_snapshot.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "tests/app/workbench/generated_project.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>

using namespace dpmix;
using namespace dpmix::workbench;
using dpmix::project::testing::rawExec;
using dpmix::project::testing::rawInteger;
using dpmix::project::testing::rawText;
using dpmix::project::testing::resealBehindTheApi;

namespace {

std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

// The first entry of run `runId`'s last ledger changed by `edit`, written back and resealed.
void editLedger(const std::string& file, long long runId, const std::function<void(privacy::LedgerEntry&)>& edit) {
    const std::string where = " FROM ledgers WHERE run_id = " + std::to_string(runId) + " ORDER BY id DESC LIMIT 1";
    auto ledger = privacy::ledgerFromJson(rawText(file, "SELECT ledger_json" + where)).value();
    auto entry = ledger.entries().front();
    edit(entry);
    privacy::Ledger edited;
    edited.record(entry);
    rawExec(file, "UPDATE ledgers SET ledger_json = " + quoted(privacy::ledgerToJson(edited)) +
                      ", recorded_epsilon = " + std::to_string(edited.total().epsilon) + " WHERE id = (SELECT id" +
                      where + ")");
    resealBehindTheApi(file);
}

}  // namespace

class TstTrustTampering : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    testing::GeneratedProject generated_;
    int next_ = 0;

    // A fresh copy of the generated study, to tamper with.
    std::string copy() {
        const QString path = dir_.path() + QStringLiteral("/copy%1.dpmix").arg(next_++);
        if (!QFile::copy(generated_.path, path)) qFatal("cannot copy the generated project");
        return path.toStdString();
    }

    static TrustReading trustOf(const std::string& file) {
        auto snapshot = loadProjectSnapshot(QString::fromStdString(file));
        if (!snapshot) qFatal("%s", snapshot.error().message.c_str());
        return snapshot->trust;
    }

    static void verifyAltered(const std::string& file, const QString& why) {
        const TrustReading t = trustOf(file);
        QVERIFY(t.known);
        QVERIFY2(t.summary.startsWith(QStringLiteral("ALTERED")), qPrintable(t.summary));
        QVERIFY2(t.summary.contains(why), qPrintable(t.summary));
        QVERIFY2(t.headline.startsWith(QStringLiteral("ALTERED")), qPrintable(t.headline));
        QCOMPARE(t.shortLabel, QStringLiteral("ALTERED: does not verify"));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        generated_ = testing::generateProject(dir_.path() + "/study.dpmix");
    }

    void untouchedProjectIsNotAltered() {
        const TrustReading t = trustOf(copy());
        QVERIFY(t.known);
        QVERIFY2(!t.summary.contains(QStringLiteral("ALTERED")), qPrintable(t.summary));
        QVERIFY2(t.summary.contains(QStringLiteral("Signature: not signed")), qPrintable(t.summary));
    }

    void resealedEpsilonEdit() {
        const std::string f = copy();
        editLedger(f, generated_.dpRunEpsilon1Seed0, [](privacy::LedgerEntry& e) { e.epsilon = 0.5; });
        verifyAltered(f, QStringLiteral("run %1 ledger").arg(generated_.dpRunEpsilon1Seed0));
    }

    void resealedSigmaEdit() {
        const std::string f = copy();
        editLedger(f, generated_.dpRunEpsilon1Seed0, [](privacy::LedgerEntry& e) { e.sigma = 3.0; });
        verifyAltered(f, QStringLiteral("run %1 ledger").arg(generated_.dpRunEpsilon1Seed0));
    }

    void statusFlip() {
        const std::string f = copy();
        rawExec(f, "UPDATE runs SET status = 'cancelled' WHERE id = " + std::to_string(generated_.dpRunEpsilon1Seed0));
        verifyAltered(f, QStringLiteral("status"));
    }

    void deletedLastRun() {
        const std::string f = copy();
        const long long last = rawInteger(f, "SELECT max(id) FROM runs");
        for (const char* table :
             {"ledgers", "lambdas", "metrics", "curves", "audits", "logs", "models", "run_transitions"})
            rawExec(f, std::string("DELETE FROM ") + table + " WHERE run_id = " + std::to_string(last));
        rawExec(f, "DELETE FROM runs WHERE id = " + std::to_string(last));
        verifyAltered(f, QStringLiteral("rows were deleted"));
    }
};

QTEST_MAIN(TstTrustTampering)
#include "tst_trust_tampering.moc"
