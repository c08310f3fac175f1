// `dpmix export-release` and the trust verdict of `dpmix inspect`, run as a user would, on a
// tiny study whose IDX files the test writes itself and whose runs it stores through the API.
#include "../cli/cli_runner.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "tiny_cli_study.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include "tests/support/test_support.h"

#include <QtTest>

#include <sqlite3.h>

using namespace dpmix;
using namespace dpmix::testing;

namespace {

privacy::LedgerEntry mixtureEntry(privacy::RandomnessMode mode) {
    auto e = privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.1, 2.0, 10, 1e-6, 13.0);
    privacy::setRandomness(e, mode);
    return e;
}

}  // namespace

class TestCliRelease : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    long long secretRun_ = 0, seededRun_ = 0, starRun_ = 0;

    QString path(const QString& name) const { return dir_.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY(!writeTinyStudy(dir_.path()).isEmpty());
        const auto created = runDpmix({"new", path("tiny.json"), "-o", path("study.dpmix")});
        QVERIFY2(created.exitCode == 0, qPrintable(created.err));

        auto p = project::ProjectFile::open(path("study.dpmix").toStdString()).value();
        auto store = [&](const std::string& method, const privacy::LedgerEntry& e, const std::string& kind) {
            const long long id = p.addRun({method, "ac", 1.0, 0, R"({"stage":"mixture","rho":0.1})"}).value();
            privacy::Ledger ledger;
            ledger.record(e);
            (void)p.recordLedger(id, ledger).value();
            (void)p.setRunStatus(id, project::RunStatus::Running).value();
            (void)p.addLambda({id, kind, {"ab", "cd"}, {0.25, 0.75}}).value();
            (void)p.addMetrics({{id, "test-auc", "ac", 0.8}}).value();
            (void)p.setRunStatus(id, project::RunStatus::Done).value();
            return id;
        };
        secretRun_ = store("dp-mixmin", mixtureEntry(privacy::RandomnessMode::Secret), "private");
        seededRun_ = store("dp-mixmin", mixtureEntry(privacy::RandomnessMode::Seeded), "private");
        starRun_ = store("non-private-mixmin", privacy::nonPrivateEntry("mixture", "A", "lambda*"), "non-private");
    }

    void inspectGivesTheProjectsVerdict() {
        const auto r = runDpmix({"inspect", path("study.dpmix"), "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject trust = r.json()["trust"].toObject();
        QCOMPARE(trust["verdict"].toString(), QString("keep-inside"));
        QVERIFY(trust["headline"].toString().contains("keep inside the data owner's trust boundary"));
        QCOMPARE(trust["contents"].toObject()["runs"].toInt(), 3);
        const auto text = runDpmix({"inspect", path("study.dpmix")});
        QVERIFY2(text.out.contains("Trust boundary  keep inside"), qPrintable(text.out));
        QVERIFY(text.out.contains("lambda* (non-private MixMin)"));
    }

    void refusalsNameTheRunAndWriteNothing() {
        for (const auto& [runs, why] :
             std::vector<std::pair<QString, QString>>{{QString::number(seededRun_), "reproducible mode"},
                                                      {QString::number(starRun_), "not private"},
                                                      {"2,x", "\"x\" is not a run id"},
                                                      {"99", "no such run"}}) {
            const auto r =
                runDpmix({"export-release", path("study.dpmix"), "--runs", runs, "-o", path("refused.dpmix")});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(why), qPrintable(r.err));
            QVERIFY(!QFile::exists(path("refused.dpmix")));
        }
        const auto bad = runDpmix({"export-release", path("study.dpmix"), "--runs", QString::number(secretRun_),
                                   "--confirm-unestablished", "nonsense", "-o", path("refused.dpmix")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("is not RUN=REASON"), qPrintable(bad.err));
    }

    void theReleaseIsReadLikeAProjectWithItsOwnVerdict() {
        auto r = runDpmix({"export-release", path("study.dpmix"), "--runs", QString::number(secretRun_), "-o",
                           path("release.dpmix"), "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // ε of the one entry, as recorded when it was computed.
        DPMIX_COMPARE_NEAR(r.json()["epsilon"].toDouble(), mixtureEntry(privacy::RandomnessMode::Secret).epsilon, 1e-9);
        QCOMPARE(r.json()["rows"].toObject()["metrics"].toInt(), 0);  // test-auc stays out

        r = runDpmix({"inspect", path("release.dpmix"), "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject j = r.json();
        const QJsonObject trust = j["trust"].toObject();
        QCOMPARE(trust["verdict"].toString(), QString("dp-release"));
        QCOMPARE(trust["non_private"].toArray().size(), 0);
        QCOMPARE(trust["release_manifest"].toObject()["from_project"].toString(), QString("study.dpmix"));
        const QJsonObject contents = trust["contents"].toObject();
        QCOMPARE(contents["runs"].toInt(), 1);
        QCOMPARE(contents["lambdas"].toInt(), 1);
        QCOMPARE(contents["metrics"].toInt(), 0);
        QCOMPARE(j["sources"].toArray()[1].toObject()["content_hash"].toString(), QString());
        QCOMPARE(j["integrity"].toObject()["hash_chain_ok"].toBool(), true);
        // Nothing can be run into a release.
        const auto run = runDpmix({"run", path("release.dpmix"), "--stages", "mixture"});
        QVERIFY(run.exitCode != 0);
        QVERIFY2((run.err + run.out).contains("DP release"), qPrintable(run.err + run.out));
    }

    void testMetricsAreIncludedOnlyWhenAskedAndSaidSo() {
        const auto r = runDpmix({"export-release", path("study.dpmix"), "--runs", QString::number(secretRun_), "-o",
                                 path("with-tests.dpmix"), "--include-test-metrics"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("NOT covered by the guarantee"));
        const auto text = runDpmix({"inspect", path("with-tests.dpmix")});
        QVERIFY2(text.out.contains("NOT covered by the guarantee"), qPrintable(text.out));
        QVERIFY(text.out.contains("test metrics included"));
    }
};

QTEST_GUILESS_MAIN(TestCliRelease)
#include "tst_cli_release.moc"
