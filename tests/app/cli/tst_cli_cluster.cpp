// `dpmix audit --executor slurm` on a real (single-node) Slurm — label `cluster`
// (scripts/slurm-local.sh starts one; docs/CLUSTER.md):
//  - the same audit run locally and as 8 array tasks stores identical results (ε_LB, counts,
//    threshold, every run's score through the record's scores hash, the ledger);
//  - an array task cancelled with scancel is listed as failed (Slurm state, log path), the merge
//    waits and stores nothing, a resubmission of the failed unit completes the job;
//  - merging twice stores nothing twice; a job directory of another project and a corrupt unit
//    result are refused with nothing stored; no sbatch on PATH and an unreachable controller are
//    clear errors that leave no job directory.
//  - `dpmix run --executor slurm` of 2 seeds × 2 methods (tiny steps) merges into the runs a local
//    `dpmix run` stores on a copy of the project: same rows, metrics bit for bit, λ, ledgers;
//    merging twice stores nothing twice;
//  - the same grid with secret randomness (no --reproducible): unit 0's first attempt reserves and
//    then fails before its mechanism runs, `dpmix jobs resubmit` runs it again as a second release;
//    `dpmix budget` counts the grid, then the second attempt beside it, and after the merge the
//    merged runs (ledger `secret`) with the second attempt kept for good.
//  - the sweeps, the k-scaling and the AdaMix-R experiment (`dpmix experiment … --executor
//    slurm`) merge into the runs the local experiments store (AdaMix-R: cells, per-example
//    records and metrics bit for bit; its dry run lists seeds × private counts tasks).
// Without Slurm the test skips, unless DPMIX_REQUIRE_SLURM=1 (scripts/run-tests.sh), where it fails.
#include "cli_runner.h"
#include "idx_fixture.h"
#include "tests/support/local_slurm.h"
#include "tests/support/test_support.h"

#include "engine/project/project_file.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <nlohmann/json.hpp>

namespace {

using dpmix::test_support::writeIdx;

QString specText(double epsilon) {
    return QString(R"({
  "name": "cluster-audit",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "images.idx",
                      "options": {"labels": "labels.idx", "classes": "a,b"}}],
  "sensitive": {"name": "sens", "loader": "idx", "path": "images.idx",
                "options": {"labels": "labels.idx", "classes": "a,b"}},
  "tasks": {"public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]}],
            "sensitive": [{"name": "is-a", "classes": ["a"]}]},
  "privacy": {"epsilon": %1, "delta": 1e-5, "rho": 0.5},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 20}},
  "seeds": [0]
})")
        .arg(epsilon);
}

CliResult runWithEnv(const QStringList& args, const QString& dir, const QProcessEnvironment& env) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.setProcessEnvironment(env);
    p.start(dpmix::test_support::binaryPath("/bin/dpmix"), args);
    CliResult r;
    if (!p.waitForFinished(120000)) return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QJsonObject firstJob(const CliResult& r) { return QJsonDocument::fromJson(r.out.toUtf8()).array().at(0).toObject(); }

struct StoredAudit {
    dpmix::project::RunRecord run;
    dpmix::project::AuditRecord record;
    std::vector<dpmix::project::MetricRecord> metrics;
    std::string ledgerJson;
};

StoredAudit storedAudit(const QString& file, long long runId) {
    StoredAudit s;
    auto project = dpmix::project::ProjectFile::open(file.toStdString(), dpmix::project::OpenMode::ReadOnly);
    if (!project) return s;
    if (auto run = project->run(runId)) s.run = *run;
    if (auto audits = project->audits(runId); audits && !audits->empty()) s.record = audits->front();
    if (auto metrics = project->metrics(runId)) s.metrics = *metrics;
    if (auto ledgers = project->ledgers(runId); ledgers && !ledgers->empty())
        s.ledgerJson = ledgers->front().ledgerJson;
    return s;
}

// A tiny study big enough for a downstream run (the test split holds both classes).
QString gridSpecText() {
    return R"({
  "name": "cluster-grid",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "grid-images.idx",
                      "options": {"labels": "grid-labels.idx", "classes": "a,b"}}],
  "sensitive": {"name": "sens", "loader": "idx", "path": "grid-images.idx",
                "options": {"labels": "grid-labels.idx", "classes": "a,b"}},
  "tasks": {"public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]}],
            "sensitive": [{"name": "is-a", "classes": ["a"]}]},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.5},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 20},
             "pretrain": {"batch": 16, "lr": 0.1, "steps": 2},
             "finetune": {"batch": 8, "lr": 0.05, "steps": 2, "clip": 1.0}},
  "seeds": [0]
})";
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every run of a project after the proxy (run 1) as one text: rows, metrics (as their IEEE-754
// bits), λ records and ledgers. Two projects with equal texts stored the same runs.
std::string gridRunsText(const QString& file) {
    auto project = dpmix::project::ProjectFile::open(file.toStdString(), dpmix::project::OpenMode::ReadOnly);
    if (!project) return "cannot open " + file.toStdString();
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : project->runs().value()) {
        if (r.method == "proxy") continue;
        nlohmann::json j{{"id", r.id},
                         {"method", r.method},
                         {"task", r.task},
                         {"seed", r.seed},
                         {"status", dpmix::project::toString(r.status)},
                         {"config", r.configJson}};
        j["epsilon"] = r.epsilon ? nlohmann::json(*r.epsilon) : nlohmann::json(nullptr);
        for (const auto& m : project->metrics(r.id).value()) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, &m.value, sizeof bits);
            j["metrics"].push_back({m.name, m.className, bits});
        }
        for (const auto& l : project->lambdas(r.id).value()) j["lambdas"].push_back({l.kind, l.names, l.values});
        for (const auto& l : project->ledgers(r.id).value()) j["ledgers"].push_back(l.ledgerJson);
        for (const auto& m : project->models(r.id).value()) j["models"].push_back({m.name, m.contentHash});
        for (const auto& name : project->curveNames(r.id).value())
            for (const auto& pt : project->curve(r.id, name).value()) {
                std::uint64_t bits = 0;
                std::memcpy(&bits, &pt.value, sizeof bits);
                j["curves"].push_back({name, pt.step, bits});
            }
        out.push_back(j);
    }
    return out.dump(1);
}

// gridRunsText's runs, each without its id, sorted: equal for the same runs stored in another order.
std::vector<std::string> runsWithoutIds(const QString& file) {
    std::vector<std::string> out;
    for (auto run : nlohmann::json::parse(gridRunsText(file))) {
        run.erase("id");
        out.push_back(run.dump());
    }
    std::sort(out.begin(), out.end());
    return out;
}

long long runCount(const QString& file) {
    auto project = dpmix::project::ProjectFile::open(file.toStdString(), dpmix::project::OpenMode::ReadOnly);
    if (!project) return -1;
    auto runs = project->runs();
    return runs ? static_cast<long long>(runs->size()) : -1;
}

}  // namespace

class TestCliCluster : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString spec_, project_;
    long long localRun_ = 0;

    // Polls `dpmix jobs status` until no unit is pending or running.
    QJsonObject waitForJob(const QString& job, int seconds = 90, const QString& project = {}) {
        QElapsedTimer t;
        t.start();
        QJsonObject s;
        while (t.elapsed() < seconds * 1000) {
            const auto r = runDpmix({"jobs", "status", project.isEmpty() ? project_ : project, "--job", job, "--json"},
                                    dir_.path());
            s = firstJob(r);
            if (r.exitCode == 0 && s["pending"].toInt() == 0 && s["running"].toInt() == 0) return s;
            QThread::msleep(500);
        }
        return s;
    }

    // The secret grid's study: other images than the run grid's, so a data set of its own in the store.
    bool writeSecretStudy() {
        QByteArray pixels, labels;
        QRandomGenerator rng(12);
        for (int i = 0; i < 200 * 64; ++i) pixels.append(char(rng.bounded(256)));
        for (int i = 0; i < 200; ++i) labels.append(char(i % 2));
        writeIdx(dir_.filePath("secret-images.idx"), {200, 8, 8}, pixels);
        writeIdx(dir_.filePath("secret-labels.idx"), {200}, labels);
        QFile f(dir_.filePath("secret.json"));
        return f.open(QIODevice::WriteOnly) && f.write(gridSpecText().replace("grid-", "secret-").toUtf8()) > 0;
    }

    QJsonObject budgetOf(const QString& project) {
        const auto r = runDpmix({"budget", project, "--json"}, dir_.path());
        return r.exitCode == 0 ? r.json() : QJsonObject{{"error", r.err}};
    }

private Q_SLOTS:
    void initTestCase() {
        DPMIX_SKIP_WITHOUT_SLURM();
        QVERIFY(dir_.isValid());
        QByteArray pixels, labels;
        QRandomGenerator rng(7);
        for (int i = 0; i < 60 * 64; ++i) pixels.append(char(rng.bounded(256)));
        for (int i = 0; i < 60; ++i) labels.append(char(i % 2));
        writeIdx(dir_.filePath("images.idx"), {60, 8, 8}, pixels);
        writeIdx(dir_.filePath("labels.idx"), {60}, labels);
        for (const auto& [name, eps] : {std::pair{"spec.json", 1.0}, std::pair{"other.json", 2.0}}) {
            QFile f(dir_.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(specText(eps).toUtf8());
        }
        spec_ = dir_.filePath("spec.json");
        project_ = dir_.filePath("spec.dpmix");
        // The local audit: 2 x 400 runs on this machine.
        const auto local = runDpmix(
            {"audit", spec_, "--task", "is-a", "--canary", "max-clip", "--runs", "400", "--json"}, dir_.path());
        QVERIFY2(local.exitCode == 0, qPrintable(local.err));
        localRun_ = local.json()["run_id"].toInteger();
        QVERIFY(localRun_ > 0);
    }

    void dryRunPrintsTheScript() {
        const auto r = runDpmix(
            {"audit", project_, "--task", "is-a", "--canary", "max-clip", "--runs", "400", "--executor", "slurm",
             "--units", "8", "--max-parallel", "2", "--partition", "debug", "--time", "00:10:00", "--dry-run"},
            dir_.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("#SBATCH --partition=debug") && r.out.contains("#SBATCH --time=00:10:00") &&
                     r.out.contains(" worker ") && r.out.contains("--array=0-7%2"),
                 qPrintable(r.out));
        QVERIFY(!QDir(project_ + ".jobs").exists());
    }

    void noSbatchOnPathIsAClearError() {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("PATH", dir_.filePath("no-such-bin"));
        const long long before = runCount(project_);
        const auto r = runWithEnv(
            {"audit", project_, "--task", "is-a", "--canary", "max-clip", "--runs", "400", "--executor", "slurm"},
            dir_.path(), env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("sbatch is not on PATH"), qPrintable(r.err));
        QCOMPARE(runCount(project_), before);
        QVERIFY(QDir(project_ + ".jobs").isEmpty());
    }

    void unreachableControllerIsAClearError() {
        // This host's slurm.conf with a controller port nobody listens on.
        QFile conf("/etc/slurm/slurm.conf");
        if (!conf.open(QIODevice::ReadOnly)) QSKIP("no /etc/slurm/slurm.conf to derive an unreachable controller from");
        QByteArray text;
        for (const QByteArray& line : conf.readAll().split('\n'))
            if (!line.startsWith("SlurmctldPort") && !line.startsWith("MessageTimeout")) text += line + '\n';
        text += "SlurmctldPort=6999\nMessageTimeout=2\n";
        QFile bogus(dir_.filePath("unreachable.conf"));
        QVERIFY(bogus.open(QIODevice::WriteOnly));
        bogus.write(text);
        bogus.close();
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("SLURM_CONF", bogus.fileName());
        const long long before = runCount(project_);
        const auto r = runWithEnv(
            {"audit", project_, "--task", "is-a", "--canary", "max-clip", "--runs", "40", "--executor", "slurm"},
            dir_.path(), env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("sbatch failed") && r.err.contains("nothing was submitted"), qPrintable(r.err));
        QCOMPARE(runCount(project_), before);
        QVERIFY(QDir(project_ + ".jobs").isEmpty());
    }

    void slurmAuditEqualsTheLocalOne() {
        // Each array task sleeps a second first, so unit 7 is still pending when it is cancelled.
        const auto submit =
            runDpmix({"audit", project_, "--task", "is-a", "--canary", "max-clip", "--runs", "400", "--executor",
                      "slurm", "--units", "8", "--max-parallel", "2", "--setup", "sleep 1", "--json"},
                     dir_.path());
        QVERIFY2(submit.exitCode == 0, qPrintable(submit.err + submit.out));
        const QString job = submit.json()["job"].toString();
        QVERIFY(!job.isEmpty());
        const auto cancel = runDpmix({"jobs", "cancel", project_, "--job", job, "--unit", "7"}, dir_.path());
        QVERIFY2(cancel.exitCode == 0, qPrintable(cancel.err));

        QJsonObject status = waitForJob(job);
        QCOMPARE(status["done"].toInt(), 7);
        QCOMPARE(status["failed"].toInt(), 1);
        const QJsonObject failed = status["units"].toArray().at(7).toObject();
        QCOMPARE(failed["state"].toString(), QString("failed"));
        QCOMPARE(failed["slurm_state"].toString(), QString("CANCELLED"));
        QVERIFY2(failed["log"].toString().contains("/logs/unit-7."), qPrintable(failed["log"].toString()));

        // The merge waits for unit 7: nothing is stored.
        const long long before = runCount(project_);
        auto merge = runDpmix({"jobs", "merge", project_, "--json"}, dir_.path());
        QCOMPARE(merge.exitCode, 3);
        QCOMPARE(runCount(project_), before);

        const auto resubmit = runDpmix({"jobs", "resubmit", project_, "--job", job}, dir_.path());
        QVERIFY2(resubmit.exitCode == 0, qPrintable(resubmit.err));
        QVERIFY2(resubmit.out.contains("--array=7"), qPrintable(resubmit.out));
        status = waitForJob(job);
        QCOMPARE(status["done"].toInt(), 8);

        // A corrupt unit result: refused, nothing stored; restored, the merge goes through.
        const QString unitFile = dir_.filePath("spec.dpmix.jobs/" + job + "/units/unit-3.json");
        QFile f(unitFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray good = f.readAll();
        f.close();
        QByteArray bad = good;
        const int at = bad.indexOf("\"scores\":[\"") + 11;
        bad[at] = bad[at] == '0' ? '1' : '0';
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bad);
        f.close();
        merge = runDpmix({"jobs", "merge", project_}, dir_.path());
        QCOMPARE(merge.exitCode, 1);
        QVERIFY2(merge.err.contains("unit 3") && merge.err.contains("checksum"), qPrintable(merge.err));
        QCOMPARE(runCount(project_), before);
        const auto st = firstJob(runDpmix({"jobs", "status", project_, "--json"}, dir_.path()));
        QCOMPARE(st["corrupt"].toInt(), 1);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(good);
        f.close();

        merge = runDpmix({"jobs", "merge", project_, "--json", "--keep-job-files"}, dir_.path());
        QVERIFY2(merge.exitCode == 0, qPrintable(merge.err + merge.out));
        const QJsonObject m = firstJob(merge);
        QVERIFY(!m["job_files_removed"].toBool());
        QVERIFY(QDir(dir_.filePath("spec.dpmix.jobs/" + job)).exists());
        QVERIFY(m["imported"].toBool());
        const long long merged = m["run_id"].toInteger();
        QCOMPARE(runCount(project_), before + 1);

        // Identical to the local audit, bit for bit.
        const StoredAudit a = storedAudit(project_, localRun_), b = storedAudit(project_, merged);
        QCOMPARE(a.run.method, std::string("audit"));
        QCOMPARE(b.run.method, a.run.method);
        QCOMPARE(b.run.configJson, a.run.configJson);
        QCOMPARE(b.run.epsilon, a.run.epsilon);
        QCOMPARE(b.run.seed, a.run.seed);
        QCOMPARE(b.record.name, a.record.name);
        QVERIFY(std::memcmp(&a.record.epsilonLowerBound, &b.record.epsilonLowerBound, sizeof(double)) == 0);
        QCOMPARE(b.record.counts.falsePositives, a.record.counts.falsePositives);
        QCOMPARE(b.record.counts.falseNegatives, a.record.counts.falseNegatives);
        QCOMPARE(b.record.detailsJson, a.record.detailsJson);  // threshold, rates, score spread, scores hash
        QVERIFY(nlohmann::json::parse(a.record.detailsJson).contains("scores_sha256"));
        QCOMPARE(b.ledgerJson, a.ledgerJson);
        QCOMPARE(b.metrics.size(), a.metrics.size());
        for (std::size_t i = 0; i < a.metrics.size(); ++i) {
            QCOMPARE(b.metrics[i].name, a.metrics[i].name);
            QVERIFY(std::memcmp(&a.metrics[i].value, &b.metrics[i].value, sizeof(double)) == 0);
        }
        auto project = dpmix::project::ProjectFile::open(project_.toStdString(), dpmix::project::OpenMode::ReadOnly);
        QVERIFY(project);
        auto chain = project->verifyChain();
        QVERIFY(chain && chain->ok);

        // Merging twice stores nothing twice.
        merge = runDpmix({"jobs", "merge", project_, "--json", "--keep-job-files"}, dir_.path());
        QCOMPARE(merge.exitCode, 0);
        QVERIFY(firstJob(merge)["already_merged"].toBool());
        QCOMPARE(firstJob(merge)["run_id"].toInteger(), merged);
        QCOMPARE(runCount(project_), before + 1);

        // The job directory in another project's folder: refused, nothing stored there.
        const QString other = dir_.filePath("other.dpmix");
        const auto made = runDpmix(
            {"audit", dir_.filePath("other.json"), "--task", "is-a", "--canary", "max-clip", "--runs", "4", "--json"},
            dir_.path());
        QVERIFY2(made.exitCode == 0, qPrintable(made.err));
        const long long otherRuns = runCount(other);
        QProcess cp;
        QDir().mkpath(other + ".jobs");
        cp.start("cp", {"-r", dir_.filePath("spec.dpmix.jobs/" + job), other + ".jobs/"});
        QVERIFY(cp.waitForFinished(10000) && cp.exitCode() == 0);
        merge = runDpmix({"jobs", "merge", other}, dir_.path());
        QCOMPARE(merge.exitCode, 1);
        QVERIFY2(merge.err.contains("another project"), qPrintable(merge.err));
        QCOMPARE(runCount(other), otherRuns);
        QVERIFY(QDir(other + ".jobs/" + job).exists());  // a refused merge removes nothing

        // Without --keep-job-files a merge of a job whose every unit is stored deletes its folder.
        merge = runDpmix({"jobs", "merge", project_, "--json"}, dir_.path());
        QCOMPARE(merge.exitCode, 0);
        QVERIFY(firstJob(merge)["already_merged"].toBool());
        QVERIFY(firstJob(merge)["job_files_removed"].toBool());
        QVERIFY(!QDir(dir_.filePath("spec.dpmix.jobs/" + job)).exists());
        QCOMPARE(runCount(project_), before + 1);
    }

    // The run grid's and the sweep's study: 200 random 8×8 images, two classes.
    void writeGridStudy(const QString& specName) {
        QByteArray pixels, labels;
        QRandomGenerator rng(11);
        for (int i = 0; i < 200 * 64; ++i) pixels.append(char(rng.bounded(256)));
        for (int i = 0; i < 200; ++i) labels.append(char(i % 2));
        writeIdx(dir_.filePath("grid-images.idx"), {200, 8, 8}, pixels);
        writeIdx(dir_.filePath("grid-labels.idx"), {200}, labels);
        QFile f(dir_.filePath(specName));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(gridSpecText().toUtf8());
    }

    void slurmRunGridEqualsTheLocalRun() {
        writeGridStudy("grid.json");
        const QString grid = dir_.filePath("grid.dpmix");
        auto proxy =
            runDpmix({"run", dir_.filePath("grid.json"), "--stages", "proxies", "--proxy-epochs", "1"}, dir_.path());
        QVERIFY2(proxy.exitCode == 0, qPrintable(proxy.err));
        // The local run's project: a copy of this one, proxy included (same folder depth, same stem).
        QVERIFY(QDir().mkpath(dir_.filePath("local")));
        QVERIFY(QFile::copy(grid, dir_.filePath("local/grid.dpmix")));
        QProcess cp;
        cp.start("cp", {"-r", dir_.filePath("grid.models"), dir_.filePath("local/")});
        QVERIFY(cp.waitForFinished(10000) && cp.exitCode() == 0);

        const QStringList grid2x2{"--stages",       "proxies,mixture,downstream",
                                  "--methods",      "dp-mixmin,uniform",
                                  "--seed",         "0,1",
                                  "--proxy-epochs", "1"};
        const auto submit = runDpmix(
            QStringList{"run", grid, "--executor", "slurm", "--reproducible", "--json"} + grid2x2, dir_.path());
        QVERIFY2(submit.exitCode == 0, qPrintable(submit.err + submit.out));
        QCOMPARE(submit.json()["units"].toInt(), 2);  // one per seed
        const QString job = submit.json()["job"].toString();
        const auto local =
            runDpmix(QStringList{"run", dir_.filePath("local/grid.dpmix"), "--reproducible"} + grid2x2, dir_.path());
        QVERIFY2(local.exitCode == 0, qPrintable(local.err));

        const long long before = runCount(grid);
        QCOMPARE(before, 1LL);  // the units never touch the project
        const QJsonObject status = waitForJob(job, 90, grid);
        QCOMPARE(status["done"].toInt(), 2);
        auto merge = runDpmix({"jobs", "merge", grid, "--json", "--keep-job-files"}, dir_.path());
        QVERIFY2(merge.exitCode == 0, qPrintable(merge.err + merge.out));
        QVERIFY(firstJob(merge)["imported"].toBool());
        QCOMPARE(firstJob(merge)["run_ids"].toArray().size(), 4);  // 2 seeds × 2 methods
        QCOMPARE(runCount(grid), 5LL);
        const std::string merged = gridRunsText(grid);
        QCOMPARE(merged, gridRunsText(dir_.filePath("local/grid.dpmix")));
        QVERIFY(merged.find("test-auc") != std::string::npos);

        merge = runDpmix({"jobs", "merge", grid, "--json"}, dir_.path());
        QCOMPARE(merge.exitCode, 0);
        QVERIFY(firstJob(merge)["already_merged"].toBool());
        QVERIFY(firstJob(merge)["job_files_removed"].toBool());  // the snapshot and scratch copies go
        QVERIFY(!QDir(grid + ".jobs").exists());
        QCOMPARE(runCount(grid), 5LL);
        auto project = dpmix::project::ProjectFile::open(grid.toStdString(), dpmix::project::OpenMode::ReadOnly);
        QVERIFY(project);
        auto chain = project->verifyChain();
        QVERIFY(chain && chain->ok);
    }

    void slurmSecretGridCountsEveryAttempt() {
        QVERIFY(writeSecretStudy());
        const QString secret = dir_.filePath("secret.dpmix");
        auto proxy =
            runDpmix({"run", dir_.filePath("secret.json"), "--stages", "proxies", "--proxy-epochs", "1"}, dir_.path());
        QVERIFY2(proxy.exitCode == 0, qPrintable(proxy.err));
        // Unit 0's first attempt reserves, then fails before its mechanism runs: its setup line
        // puts a file where the job's work folder goes (once; unit 1's setup takes it away).
        const QString failOnce =
            "J=\"$PWD/secret.dpmix.jobs/${SLURM_JOB_NAME#dpmix-}\"; "
            "if [ \"$SLURM_ARRAY_TASK_ID\" = 0 ] && [ ! -e \"$J/.failed-once\" ]; then touch \"$J/.failed-once\"; "
            "rm -rf \"$J/work\"; touch \"$J/work\"; elif [ -f \"$J/work\" ]; then rm -f \"$J/work\"; fi";
        const auto submit = runDpmix(
            {"run", secret, "--executor", "slurm", "--json", "--max-parallel", "1", "--setup", failOnce, "--stages",
             "proxies,mixture,downstream", "--methods", "dp-mixmin,uniform", "--seed", "0,1", "--proxy-epochs", "1"},
            dir_.path());
        QVERIFY2(submit.exitCode == 0, qPrintable(submit.err + submit.out));
        QVERIFY2(submit.err.contains("a release of its own"), qPrintable(submit.err));
        const QString job = submit.json()["job"].toString();
        const QJsonObject grid = budgetOf(secret);
        QCOMPARE(grid["releases"].toInt(), 6);  // 2 seeds x (DP-MixMin's λ and model, Uniform's model)
        const double gridEpsilon = grid["epsilon"].toDouble();

        QJsonObject status = waitForJob(job, 120, secret);
        QCOMPARE(status["done"].toInt(), 1);
        QCOMPARE(status["failed"].toInt(), 1);
        const QJsonObject failed = budgetOf(secret);
        QCOMPARE(failed["releases"].toInt(), 6);  // the failed first attempt ran under the grid's reservation
        QCOMPARE(failed["open_reservations"].toArray().at(0).toObject()["attempts_started"].toInt(), 2);

        const auto resubmit = runDpmix({"jobs", "resubmit", secret, "--job", job}, dir_.path());
        QVERIFY2(resubmit.exitCode == 0, qPrintable(resubmit.err));
        status = waitForJob(job, 120, secret);
        QCOMPARE(status["done"].toInt(), 2);
        const QJsonObject second = budgetOf(secret);
        QCOMPARE(second["releases"].toInt(), 9);  // the resubmitted attempt: seed 0's 3 releases again
        const double withAttempt = second["epsilon"].toDouble();
        QVERIFY(withAttempt > gridEpsilon);

        const auto merge = runDpmix({"jobs", "merge", secret, "--json"}, dir_.path());
        QVERIFY2(merge.exitCode == 0, qPrintable(merge.err + merge.out));
        QCOMPARE(firstJob(merge)["run_ids"].toArray().size(), 4);
        const QJsonObject merged = budgetOf(secret);
        QCOMPARE(merged["releases"].toInt(), 9);  // 6 merged, 3 of the second attempt kept for good
        QCOMPARE(merged["releases_from_this_file"].toInt(), 6);
        QVERIFY(qAbs(merged["epsilon"].toDouble() - withAttempt) <= 1e-9 * withAttempt);
        const QJsonArray open = merged["open_reservations"].toArray();
        QCOMPARE(open.size(), 1);
        const QJsonObject attempt = open.at(0).toObject()["attempt"].toObject();
        QCOMPARE(attempt["unit"].toInt(), 0);
        QCOMPARE(attempt["attempt"].toInt(), 2);
        QVERIFY(attempt["kept"].toBool());
        qInfo(
            "secret grid on Slurm: epsilon %.6f after submission (6 releases), %.6f after the resubmitted attempt "
            "(9), %.6f after the merge (9: 6 merged + 3 kept)",
            gridEpsilon, withAttempt, merged["epsilon"].toDouble());

        auto project = dpmix::project::ProjectFile::open(secret.toStdString(), dpmix::project::OpenMode::ReadOnly);
        QVERIFY(project);
        for (const auto& r : project->runs().value()) {
            if (r.method == "proxy") continue;
            const std::string ledger = project->ledgers(r.id).value().back().ledgerJson;
            QVERIFY2(ledger.find("\"randomness\":\"secret\"") != std::string::npos, ledger.c_str());
            QVERIFY2(ledger.find("seeded") == std::string::npos, ledger.c_str());
        }
        QVERIFY(project->verifyChain().value().ok);
        const auto text = runDpmix({"budget", secret}, dir_.path());
        QVERIFY2(text.out.contains("attempt 2 of unit 0") && text.out.contains("counted for good"),
                 qPrintable(text.out));
    }

    void slurmSweepEqualsTheLocalSweep() {
        writeGridStudy("sweep.json");
        const QString sweep = dir_.filePath("sweep.dpmix");
        auto proxy =
            runDpmix({"run", dir_.filePath("sweep.json"), "--stages", "proxies", "--proxy-epochs", "1"}, dir_.path());
        QVERIFY2(proxy.exitCode == 0, qPrintable(proxy.err));
        QVERIFY(QDir().mkpath(dir_.filePath("local-sweep")));
        QVERIFY(QFile::copy(sweep, dir_.filePath("local-sweep/sweep.dpmix")));
        QProcess cp;
        cp.start("cp", {"-r", dir_.filePath("sweep.models"), dir_.filePath("local-sweep/")});
        QVERIFY(cp.waitForFinished(10000) && cp.exitCode() == 0);

        const QStringList points{"--epsilons", "0.5,2,inf", "--seeds", "2", "--proxy-epochs", "1"};
        const auto submit = runDpmix(
            QStringList{"experiment", "epsilon-sweep", sweep, "--executor", "slurm", "--json"} + points, dir_.path());
        QVERIFY2(submit.exitCode == 0, qPrintable(submit.err + submit.out));
        QCOMPARE(submit.json()["units"].toInt(), 3);  // one per point
        const QString job = submit.json()["job"].toString();
        const auto local = runDpmix(
            QStringList{"experiment", "epsilon-sweep", dir_.filePath("local-sweep/sweep.dpmix")} + points, dir_.path());
        QVERIFY2(local.exitCode == 0, qPrintable(local.err));
        QCOMPARE(waitForJob(job, 90, sweep)["done"].toInt(), 3);
        auto merge = runDpmix({"jobs", "merge", sweep, "--json"}, dir_.path());
        QVERIFY2(merge.exitCode == 0, qPrintable(merge.err + merge.out));
        QCOMPARE(firstJob(merge)["run_ids"].toArray().size(), 3);  // 3 points × the spec's one sensitive task
        QVERIFY(firstJob(merge)["job_files_removed"].toBool());
        QVERIFY(!QDir(sweep + ".jobs").exists());
        // The same runs, bit for bit, whatever the order (and so the ids) they were stored in.
        QCOMPARE(runsWithoutIds(sweep), runsWithoutIds(dir_.filePath("local-sweep/sweep.dpmix")));
        QCOMPARE(runsWithoutIds(sweep).size(), std::size_t(3));
    }

    void slurmKScalingEqualsTheLocalOne() {
        // Four classes, each with its single-class public task (k-scaling's class proxy needs them).
        QByteArray pixels, labels;
        QRandomGenerator rng(13);
        for (int i = 0; i < 200 * 64; ++i) pixels.append(char(rng.bounded(256)));
        for (int i = 0; i < 200; ++i) labels.append(char(i % 4));
        writeIdx(dir_.filePath("ks-images.idx"), {200, 8, 8}, pixels);
        writeIdx(dir_.filePath("ks-labels.idx"), {200}, labels);
        QFile f(dir_.filePath("ks.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({
  "name": "cluster-k-scaling",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "ks-images.idx",
                      "options": {"labels": "ks-labels.idx", "classes": "a,b,c,d"}}],
  "sensitive": {"name": "sens", "loader": "idx", "path": "ks-images.idx",
                "options": {"labels": "ks-labels.idx", "classes": "a,b,c,d"}},
  "tasks": {"public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]},
                       {"name": "c", "classes": ["c"]}, {"name": "d", "classes": ["d"]}],
            "sensitive": [{"name": "ab", "classes": ["a", "b"]}]},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.5},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 10}},
  "seeds": [0]
})");
        f.close();
        const QString ks = dir_.filePath("ks.dpmix");
        auto proxy =
            runDpmix({"run", dir_.filePath("ks.json"), "--stages", "proxies", "--proxy-epochs", "1"}, dir_.path());
        QVERIFY2(proxy.exitCode == 0, qPrintable(proxy.err));
        QVERIFY(QDir().mkpath(dir_.filePath("local-ks")));
        QVERIFY(QFile::copy(ks, dir_.filePath("local-ks/ks.dpmix")));
        QProcess cp;
        cp.start("cp", {"-r", dir_.filePath("ks.models"), dir_.filePath("local-ks/")});
        QVERIFY(cp.waitForFinished(10000) && cp.exitCode() == 0);

        const QStringList flags{"--ks", "2,4", "--seeds", "2", "--classes", "3", "--proxy-epochs", "1"};
        const auto submit =
            runDpmix(QStringList{"experiment", "k-scaling", ks, "--executor", "slurm", "--json"} + flags, dir_.path());
        QVERIFY2(submit.exitCode == 0, qPrintable(submit.err + submit.out));
        QCOMPARE(submit.json()["units"].toInt(), 3);  // one per one-vs-rest class
        const QString job = submit.json()["job"].toString();
        const auto local =
            runDpmix(QStringList{"experiment", "k-scaling", dir_.filePath("local-ks/ks.dpmix")} + flags, dir_.path());
        QVERIFY2(local.exitCode == 0, qPrintable(local.err));
        QCOMPARE(waitForJob(job, 90, ks)["done"].toInt(), 3);
        auto merge = runDpmix({"jobs", "merge", ks, "--json", "--keep-job-files"}, dir_.path());
        QVERIFY2(merge.exitCode == 0, qPrintable(merge.err + merge.out));
        QVERIFY(firstJob(merge)["imported"].toBool());
        // One k-scaling run, equal to the local one: configuration, curves bit for bit, ledger.
        const std::string merged = gridRunsText(ks);
        QCOMPARE(merged, gridRunsText(dir_.filePath("local-ks/ks.dpmix")));
        QVERIFY(merged.find("excess/") != std::string::npos);
        merge = runDpmix({"jobs", "merge", ks, "--json"}, dir_.path());
        QVERIFY(firstJob(merge)["already_merged"].toBool());
        QVERIFY(!QDir(ks + ".jobs").exists());
    }

    void slurmAdamixEqualsTheLocalOne() {
        // Sensitive classes a–d; a public source with other classes (w–z) trains the extractor.
        QByteArray pixels, labels;
        QRandomGenerator rng(17);
        for (int i = 0; i < 200 * 64; ++i) pixels.append(char(rng.bounded(256)));
        for (int i = 0; i < 200; ++i) labels.append(char(i % 4));
        writeIdx(dir_.filePath("ad-images.idx"), {200, 8, 8}, pixels);
        writeIdx(dir_.filePath("ad-labels.idx"), {200}, labels);
        QFile f(dir_.filePath("ad.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({
  "name": "cluster-adamix",
  "public_sources": [{"name": "ext", "loader": "idx", "path": "ad-images.idx",
                      "options": {"labels": "ad-labels.idx", "classes": "w,x,y,z"}}],
  "sensitive": {"name": "sens", "loader": "idx", "path": "ad-images.idx",
                "options": {"labels": "ad-labels.idx", "classes": "a,b,c,d"}},
  "tasks": {"public": [{"name": "w", "classes": ["w"]}], "sensitive": [{"name": "ab", "classes": ["a", "b"]}]},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.5},
  "seeds": [0]
})");
        f.close();
        const QStringList flags{"--shots", "1", "--private-per-class", "5,all", "--epsilons", "1",
                                "--seeds", "2", "--extractor-epochs",  "1",     "--threads",  "1"};
        // A dry run lists the array (seeds × private counts) without preparing anything.
        const auto dry = runDpmix(
            QStringList{"experiment", "adamix", dir_.filePath("ad.json"), "--executor", "slurm", "--dry-run"} + flags,
            dir_.path());
        QVERIFY2(dry.exitCode == 0 && dry.out.contains("--array=0-3"), qPrintable(dry.err + dry.out));
        // The local experiment first: it stores the extractor, which the submission then reuses.
        const auto local =
            runDpmix(QStringList{"experiment", "adamix", dir_.filePath("ad.json"), "--json"} + flags, dir_.path());
        QVERIFY2(local.exitCode == 0, qPrintable(local.err));
        const QString ad = dir_.filePath("ad.dpmix");
        const auto submit =
            runDpmix(QStringList{"experiment", "adamix", ad, "--executor", "slurm", "--json"} + flags, dir_.path());
        QVERIFY2(submit.exitCode == 0, qPrintable(submit.err + submit.out));
        QCOMPARE(submit.json()["units"].toInt(), 4);
        QCOMPARE(waitForJob(submit.json()["job"].toString(), 90, ad)["done"].toInt(), 4);
        auto merge = runDpmix({"jobs", "merge", ad, "--json", "--keep-job-files"}, dir_.path());
        QVERIFY2(merge.exitCode == 0, qPrintable(merge.err + merge.out));
        QVERIFY(firstJob(merge)["imported"].toBool());
        // Two experiment runs: the cells, per-example records (blob hashes) and metrics equal.
        auto project = dpmix::project::ProjectFile::open(ad.toStdString(), dpmix::project::OpenMode::ReadOnly);
        QVERIFY(project);
        std::vector<std::string> stored;
        for (const auto& r : project->runs().value()) {
            if (r.method != "adamix-experiment") continue;
            nlohmann::json j;
            for (const auto& m : project->models(r.id).value())
                if (m.name != "extractor") j["blobs"].push_back({m.name, m.contentHash});
            for (const auto& m : project->metrics(r.id).value()) {
                std::uint64_t bits = 0;
                std::memcpy(&bits, &m.value, sizeof bits);
                j["metrics"].push_back({m.name, m.className, bits});
            }
            stored.push_back(j.dump());
        }
        QCOMPARE(stored.size(), std::size_t(2));
        QCOMPARE(stored[1], stored[0]);
        QVERIFY(stored[0].find("adamix-per-example/") != std::string::npos);
        merge = runDpmix({"jobs", "merge", ad, "--json"}, dir_.path());
        QVERIFY(firstJob(merge)["already_merged"].toBool());
        QVERIFY(!QDir(ad + ".jobs").exists());
    }
};

QTEST_GUILESS_MAIN(TestCliCluster)
#include "tst_cli_cluster.moc"
