// `dpmix audit`, `dpmix experiment` and `dpmix run`'s seed flags refuse bad input with exit 2, a message naming the
// flag, and nothing written next to the spec.
#include "cli_runner.h"
#include "idx_fixture.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using dpmix::test_support::writeIdx;

const char* kSpec = R"({
  "name": "cli-audit",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "images.idx",
                      "options": {"labels": "labels.idx", "classes": "a,b"}}],
  "sensitive": {"name": "sens", "loader": "idx", "path": "images.idx",
                "options": {"labels": "labels.idx", "classes": "a,b"}},
  "tasks": {"public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]}],
            "sensitive": [{"name": "is-a", "classes": ["a"]}]},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.2},
  "seeds": [0]
})";

}  // namespace

class TestCliAudit : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString spec_;

    void expectBadInput(const QStringList& args, const QString& flag) {
        const auto r = runDpmix(args, dir_.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(flag), qPrintable(r.err));
        QVERIFY2(!QFile::exists(dir_.filePath("spec.dpmix")), "bad input must not create the project");
    }

    // POOL.json: the spec on 80 side×side images of two classes, with short stages (the regime maps' pool).
    bool writeTinyPool(const QString& pool, int side) {
        QByteArray pixels, labels;
        for (int i = 0; i < 80; ++i) {
            labels.append(char(i % 2));
            for (int p = 0; p < side * side; ++p) pixels.append(char((i % 2 ? 180 : 60) + (p * 7 + i * 13) % 50));
        }
        writeIdx(dir_.filePath(pool + "-images.idx"), {80, quint32(side), quint32(side)}, pixels);
        writeIdx(dir_.filePath(pool + "-labels.idx"), {80}, labels);
        QByteArray spec(kSpec);
        spec.replace("\"images.idx\"", ("\"" + pool + "-images.idx\"").toUtf8())
            .replace("\"labels.idx\"", ("\"" + pool + "-labels.idx\"").toUtf8());
        spec.replace("\"seeds\": [0]",
                     "\"stages\": {\"mixture\": {\"batch\": 8, \"steps\": 5}, \"finetune\": "
                     "{\"batch\": 8, \"steps\": 2}, \"pretrain\": {\"batch\": 8, \"steps\": 2}}, \"seeds\": [0]");
        QFile f(dir_.filePath(pool + ".json"));
        return f.open(QIODevice::WriteOnly) && f.write(spec) == spec.size();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QByteArray pixels(20 * 8 * 8, char(100)), labels;
        for (int i = 0; i < 20; ++i) labels.append(char(i % 2));
        writeIdx(dir_.filePath("images.idx"), {20, 8, 8}, pixels);
        writeIdx(dir_.filePath("labels.idx"), {20}, labels);
        spec_ = dir_.filePath("spec.json");
        QFile f(spec_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kSpec);
    }
    void unknownTaskNamesTheFlagAndTheTasks() {
        const auto r = runDpmix({"audit", spec_, "--task", "nope", "--canary", "max-clip"}, dir_.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--task") && r.err.contains("'is-a'"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_.filePath("spec.dpmix")));
    }
    void badCanary() { expectBadInput({"audit", spec_, "--task", "is-a", "--canary", "loud"}, "--canary"); }
    void badMaxClipSign() {
        expectBadInput({"audit", spec_, "--task", "is-a", "--canary", "max-clip", "--max-clip-sign", "up"},
                       "--max-clip-sign");
    }
    void badMaxClipTarget() {
        expectBadInput({"audit", spec_, "--task", "is-a", "--canary", "max-clip", "--max-clip-target", "loudest"},
                       "--max-clip-target");
    }
    void runSeedFlags() {
        expectBadInput({"run", spec_, "--seeds", "0"}, "--seeds");
        expectBadInput({"run", spec_, "--seeds", "three"}, "--seeds");
        expectBadInput({"run", spec_, "--seeds", "2", "--seed", "5"}, "--seed and --seeds");
        expectBadInput({"run", spec_, "--seed", "-1"}, "--seed");
    }
    void zeroRuns() {
        expectBadInput({"audit", spec_, "--task", "is-a", "--canary", "natural", "--runs", "0"}, "--runs");
    }
    void negativeEpsilon() {
        expectBadInput({"audit", spec_, "--task", "is-a", "--canary", "natural", "--epsilon", "-1"}, "--epsilon");
    }
    void experimentFlags() {
        expectBadInput({"experiment", "rho-sweep", spec_, "--rhos", "0.1,1.5"}, "--rhos");
        expectBadInput({"experiment", "epsilon-sweep", spec_, "--epsilons", "1,-2"}, "--epsilons");
        expectBadInput({"experiment", "k-scaling", spec_, "--ks", "2,x"}, "--ks");
        expectBadInput({"experiment", "k-scaling", spec_, "--seeds", "0"}, "--seeds");
        expectBadInput({"experiment", "adamix", spec_, "--epsilons", "1,0"}, "--epsilons");
        expectBadInput({"experiment", "adamix", spec_, "--epsilons", "1,-3"}, "--epsilons");
        expectBadInput({"experiment", "adamix", spec_, "--methods", "M4,M9"}, "--methods");
        expectBadInput({"experiment", "adamix", spec_, "--shots", "0"}, "--shots");
        expectBadInput({"experiment", "adamix", spec_, "--private-per-class", "50,most"}, "--private-per-class");
        expectBadInput({"experiment", "adamix", spec_, "--seeds", "0"}, "--seeds");
        const QString out = dir_.filePath("map");
        expectBadInput({"experiment", "regime-map", spec_, "--sizes", "10,10", "--out", out}, "--sizes");
        expectBadInput({"experiment", "regime-map", spec_, "--sizes", "ten", "--out", out}, "--sizes");
        expectBadInput({"experiment", "regime-map", spec_, "--epsilons", "1,-1", "--out", out}, "--epsilons");
        expectBadInput({"experiment", "regime-map", spec_, "--seeds", "0,0", "--out", out}, "--seeds");
        expectBadInput({"experiment", "regime-map", spec_, "--model", "vgg16", "--out", out}, "--model");
        expectBadInput({"experiment", "regime-map", spec_, "--model", "resnet18", "--resnet-width", "12", "--out", out},
                       "--resnet-width");
        QVERIFY2(!QFile::exists(out), "bad regime-map input must not create the map's folder");
    }
    // A whole regime map on a tiny study: two sizes, two seeds, every method; stored, printed,
    // written as a map, and resumed without running anything again.
    void aTinyRegimeMapRunsStoresAndResumes() {
        QVERIFY(writeTinyPool("pool", 28));
        const QStringList args{"experiment",
                               "regime-map",
                               dir_.filePath("pool.json"),
                               "--sizes",
                               "40,all",
                               "--epsilons",
                               "1",
                               "--seeds",
                               "0,1",
                               "--proxy-epochs",
                               "1",
                               "--out",
                               dir_.filePath("tiny-map"),
                               "--write-map",
                               dir_.filePath("tiny-map.json")};
        const auto first = runDpmix(args, dir_.path());
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        QVERIFY2(first.out.contains("n 40 ") && first.out.contains("n 80 "), qPrintable(first.out));
        QVERIFY(first.out.contains("DP-MixMin − Random Init"));
        QVERIFY(first.err.contains("4 run(s) made, 0 already stored"));
        QVERIFY(QFile::exists(dir_.filePath("tiny-map/cli-audit-n40.dpmix")));
        QFile map(dir_.filePath("tiny-map.json"));
        QVERIFY(map.open(QIODevice::ReadOnly));
        const QByteArray json = map.readAll();
        QVERIFY(json.contains("dpmix-regime-map-v1") && json.contains("\"n\": 40") && json.contains("\"n\": 80"));
        const auto again = runDpmix(args, dir_.path());
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains("0 run(s) made, 4 already stored"), qPrintable(again.err));
    }
    // --model resnet18 --resnet-width 16 on a pool whose spec names no model: the studies of their own
    // pretrain and fine-tune ResNet-18 at width 16 (about 0.7 M float parameters, 1/16 of width 64's
    // 11.2 M: its stored models are 2-4 MB; the small CNN's on 8×8 images well under 1 MB).
    void aRegimeMapOfAnotherModelRunsInStudiesOfItsOwn() {
        QVERIFY(writeTinyPool("pool8", 8));  // 8×8 images keep ResNet-18 cheap
        const auto r = runDpmix({"experiment", "regime-map", dir_.filePath("pool8.json"), "--sizes", "40", "--epsilons",
                                 "1", "--seeds", "0", "--methods", "dp-mixmin,random-init", "--proxy-epochs", "1",
                                 "--model", "resnet18", "--resnet-width", "16", "--out", dir_.filePath("resnet-map")},
                                dir_.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("model resnet18, width 16") && r.out.contains("n 40 "), qPrintable(r.out));
        const QString project = dir_.filePath("resnet-map/cli-audit-n40-resnet18-w16.dpmix");
        QVERIFY(QFile::exists(project));
        QFile spec(dir_.filePath("resnet-map/cli-audit-n40-resnet18-w16.json"));
        QVERIFY(spec.open(QIODevice::ReadOnly));
        const QByteArray written = spec.readAll();
        QVERIFY(written.contains("\"model\": \"resnet18\"") && written.contains("\"resnet_width\": 16"));
        const auto inspected = runDpmix({"inspect", project}, dir_.path());
        QVERIFY2(inspected.exitCode == 0, qPrintable(inspected.err));
        const QRegularExpression finetuned("model finetuned: \\w+\\.bin \\((\\d+) bytes\\)");
        int models = 0;
        for (auto it = finetuned.globalMatch(inspected.out); it.hasNext(); ++models) {
            const long long bytes = it.next().captured(1).toLongLong();
            QVERIFY2(bytes > 2'000'000 && bytes < 4'000'000, qPrintable(inspected.out));
        }
        QCOMPARE(models, 2);  // DP-MixMin's and Random Init's
    }

    void adamixChecksTheSourcesAgainstTheDataBeforeStoringARun() {
        // Public and sensitive data share their classes: no source to train an extractor on, and a
        // shots source that is not registered. Each refusal names the flag and stores no run.
        QTemporaryDir work;
        for (const char* f : {"images.idx", "labels.idx", "spec.json"})
            QVERIFY(QFile::copy(dir_.filePath(f), work.filePath(f)));
        const QString spec = work.filePath("spec.json");
        auto refused = [&](const QStringList& extra, const QString& flag) {
            const auto r = runDpmix(QStringList{"experiment", "adamix", spec, "--threads", "1"} + extra, work.path());
            QVERIFY2(r.exitCode != 0, qPrintable(r.out));
            QVERIFY2(r.err.contains(flag), qPrintable(r.err));
            const auto shown = runDpmix({"inspect", work.filePath("spec.dpmix"), "--json"}, work.path());
            QVERIFY2(shown.exitCode == 0, qPrintable(shown.err));
            QCOMPARE(QJsonDocument::fromJson(shown.out.toUtf8()).object()["runs"].toArray().size(), 0);
        };
        refused({}, "--extractor-source");
        refused({"--shots-source", "nope"}, "--shots-source");
        refused({"--extractor-source", "pub"}, "--extractor-source");  // shares the private task's classes
    }
    void trainingAuditFlags() {
        const QStringList base{"audit", spec_, "--task", "is-a", "--mechanism", "dirichlet"};
        expectBadInput(base + QStringList{"--canary", "max-clip"}, "--canary");
        expectBadInput(base + QStringList{"--canary", "large-norm", "--no-noise"}, "--no-noise");
        expectBadInput(base + QStringList{"--canary", "large-norm", "--max-clip-sign", "raise"}, "--max-clip-sign");
        expectBadInput(base + QStringList{"--canary", "large-norm", "--batch", "0"}, "--batch");
        expectBadInput(base + QStringList{"--canary", "large-norm", "--examples", "1"}, "--examples");
        expectBadInput(base + QStringList{"--canary", "large-norm", "--examples", "10", "--batch", "11"}, "--batch");
        expectBadInput(base + QStringList{"--canary", "large-norm", "--norm-multiple", "-1"}, "--norm-multiple");
        expectBadInput(
            {"audit", spec_, "--task", "is-a", "--mechanism", "sgd", "--canary", "large-norm", "--epsilon", "1"},
            "--epsilon");
        expectBadInput({"audit", spec_, "--task", "is-a", "--mechanism", "bogus", "--canary", "large-norm"},
                       "--mechanism");
        expectBadInput({"audit", spec_, "--task", "is-a", "--canary", "max-clip", "--examples", "10"}, "--examples");
        expectBadInput({"audit", spec_, "--task", "nope", "--mechanism", "dirichlet", "--canary", "large-norm"},
                       "--task");
    }
    void aTrainingAuditIsStoredAndJudgedInInspect() {
        // The study in its own folder (this one creates its project), with 80 varied images: enough
        // for a train / validation / test split and a split B of at least 8.
        QTemporaryDir work;
        QByteArray pixels, labels;
        for (int i = 0; i < 80; ++i) {
            labels.append(char(i % 2));
            for (int j = 0; j < 64; ++j) pixels.append(char((i * 37 + j * 11 + (i % 2) * 90) % 256));
        }
        writeIdx(work.filePath("images.idx"), {80, 8, 8}, pixels);
        writeIdx(work.filePath("labels.idx"), {80}, labels);
        QVERIFY(QFile::copy(dir_.filePath("spec.json"), work.filePath("spec.json")));
        const auto r = runDpmix({"audit", work.filePath("spec.json"), "--task", "is-a", "--mechanism", "dirichlet",
                                 "--canary", "large-norm", "--runs", "3", "--examples", "8", "--batch", "4", "--steps",
                                 "3", "--threads", "1", "--json"},
                                work.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto audit = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(audit["mechanism"].toString(), QString("dirichlet"));
        QCOMPARE(audit["canary"].toString(), QString("large-norm"));
        QCOMPARE(audit["claimed_epsilon"].toDouble(), 1.0);
        QCOMPARE(audit["runs"].toInt(), 3);
        QCOMPARE(audit["q"].toDouble(), 0.5);
        QVERIFY2(audit["verdict"].toString().contains("audit run #1"), qPrintable(audit["verdict"].toString()));

        const auto shown = runDpmix({"inspect", work.filePath("spec.dpmix"), "--json"}, work.path());
        QVERIFY2(shown.exitCode == 0, qPrintable(shown.err));
        const auto runs = QJsonDocument::fromJson(shown.out.toUtf8()).object()["runs"].toArray();
        QCOMPARE(runs.size(), 1);
        const auto run = runs[0].toObject();
        QCOMPARE(run["method"].toString(), QString("audit"));
        const auto stored = run["audits"].toArray()[0].toObject();
        QCOMPARE(stored["name"].toString(), QString("finetune-dirichlet-large-norm"));
        // The audit's own ledger says it released nothing.
        const auto entry =
            run["ledgers"].toArray()[0].toObject()["ledger"].toObject()["entries"].toArray()[0].toObject();
        QCOMPARE(entry["mechanism"].toString(), QString("non-private"));
    }
    void oneRunAuditFlags() {
        const QStringList base{"audit", spec_, "--task", "is-a", "--one-run"};
        expectBadInput(base + QStringList{"--mechanism", "dp-sgd", "--canaries", "1"}, "--canaries");
        expectBadInput(base + QStringList{"--mechanism", "dp-sgd", "--canaries", "ten"}, "--canaries");
        expectBadInput(base + QStringList{"--mechanism", "dp-sgd", "--guesses", "0"}, "--guesses");
        expectBadInput(base + QStringList{"--mechanism", "dp-sgd", "--canaries", "10", "--guesses", "6"}, "--guesses");
        expectBadInput(base + QStringList{"--mechanism", "dp-sgd", "--steps", "0"}, "--steps");
        expectBadInput(base + QStringList{"--mechanism", "dp-sgd", "--canary", "max-clip"}, "--canary");
        expectBadInput(base + QStringList{"--mechanism", "sgd", "--epsilon", "1"}, "--epsilon");
        expectBadInput(base, "--mechanism");  // the mixture step is not a fine-tuning
        expectBadInput(base + QStringList{"--mechanism", "dp-sgd", "--runs", "10"}, "--runs");
        expectBadInput(base + QStringList{"--mechanism", "dp-sgd", "--batch", "10"}, "--batch");
        expectBadInput(
            {"audit", spec_, "--task", "is-a", "--mechanism", "dp-sgd", "--canary", "large-norm", "--canaries", "10"},
            "--canaries");
        expectBadInput({"audit", spec_, "--task", "is-a", "--mechanism", "dp-sgd"}, "--canary");
        expectBadInput({"audit", spec_, "--task", "nope", "--one-run", "--mechanism", "dp-sgd"}, "--task");
        // White-box: DP-SGD only, Dirac gradients (no canary image), and only beside --one-run.
        expectBadInput(base + QStringList{"--white-box", "--mechanism", "dirichlet"}, "white-box");
        expectBadInput(base + QStringList{"--white-box", "--mechanism", "dp-sgd", "--canary", "large-norm"},
                       "--canary");
        expectBadInput(base + QStringList{"--white-box", "--mechanism", "sgd", "--norm-multiple", "5"},
                       "--norm-multiple");
        expectBadInput(
            {"audit", spec_, "--task", "is-a", "--mechanism", "dp-sgd", "--canary", "large-norm", "--white-box"},
            "--white-box");
    }
    void aOneRunAuditIsStoredAndJudgedInInspect() {
        // Its own study of 80 varied images, fine-tuned with 4-image batches for 3 steps.
        QTemporaryDir work;
        QByteArray pixels, labels;
        for (int i = 0; i < 80; ++i) {
            labels.append(char(i % 2));
            for (int j = 0; j < 64; ++j) pixels.append(char((i * 37 + j * 11 + (i % 2) * 90) % 256));
        }
        writeIdx(work.filePath("images.idx"), {80, 8, 8}, pixels);
        writeIdx(work.filePath("labels.idx"), {80}, labels);
        QByteArray spec(kSpec);
        spec.replace(R"("seeds": [0])",
                     R"("stages": {"finetune": {"clip": 1, "batch": 4, "lr": 0.5, "steps": 3}}, "seeds": [0])");
        QFile f(work.filePath("spec.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(spec);
        f.close();
        const auto r = runDpmix({"audit", work.filePath("spec.json"), "--task", "is-a", "--one-run", "--mechanism",
                                 "dp-sgd", "--canaries", "8", "--guesses", "2", "--device", "cpu", "--json"},
                                work.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("[one-run audit]"), qPrintable(r.err));  // progress lines
        const auto audit = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(audit["kind"].toString(), QString("one-run"));
        QCOMPARE(audit["mechanism"].toString(), QString("dp-sgd"));
        QCOMPARE(audit["claimed_epsilon"].toDouble(), 1.0);
        QCOMPARE(audit["canaries"].toInt(), 8);
        QCOMPARE(audit["guesses"].toInt(), 4);
        QCOMPARE(audit["steps"].toInt(), 3);
        QVERIFY(audit["epsilon_lb"].toDouble() >= 0.0);
        QVERIFY2(audit["verdict"].toString().contains("audit run #1"), qPrintable(audit["verdict"].toString()));

        const auto shown = runDpmix({"inspect", work.filePath("spec.dpmix"), "--json"}, work.path());
        QVERIFY2(shown.exitCode == 0, qPrintable(shown.err));
        const auto run = QJsonDocument::fromJson(shown.out.toUtf8()).object()["runs"].toArray()[0].toObject();
        QCOMPARE(run["method"].toString(), QString("audit"));
        QCOMPARE(run["audits"].toArray()[0].toObject()["name"].toString(),
                 QString("finetune-one-run-dp-sgd-large-norm"));
        const auto entry =
            run["ledgers"].toArray()[0].toObject()["ledger"].toObject()["entries"].toArray()[0].toObject();
        QCOMPARE(entry["mechanism"].toString(), QString("non-private"));

        const auto white =
            runDpmix({"audit", work.filePath("spec.dpmix"), "--task", "is-a", "--one-run", "--white-box", "--mechanism",
                      "dp-sgd", "--canaries", "8", "--guesses", "2", "--device", "cpu", "--json"},
                     work.path());
        QVERIFY2(white.exitCode == 0, qPrintable(white.err));
        const auto w = QJsonDocument::fromJson(white.out.toUtf8()).object();
        QCOMPARE(w["variant"].toString(), QString("white-box"));
        QCOMPARE(w["canary"].toString(), QString("dirac-gradient"));
        QCOMPARE(w["audit"].toString(), QString("finetune-one-run-white-box-dp-sgd-dirac-gradient"));
        QCOMPARE(w["guesses"].toInt(), 4);
        QVERIFY2(w["verdict"].toString().contains("in 2 audits"),
                 qPrintable(w["verdict"].toString()));  // judged beside the black-box one
    }
};

QTEST_GUILESS_MAIN(TestCliAudit)
#include "tst_cli_audit.moc"
