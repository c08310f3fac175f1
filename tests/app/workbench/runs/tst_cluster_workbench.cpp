// Run on cluster… walked in a real window on a real Slurm (label cluster: scripts/slurm-local.sh
// starts a one-node one; docs/CLUSTER.md, "From the workbench"). A reproducible study is run
// here first (Run DP-MixMin, seeds 0 and 1, an Advanced value other than the spec's); a copy of its project then
// submits the same study from the window's Run on cluster…: one array task per seed, followed by the Cluster jobs dock,
// which stores the job in the project by itself when both tasks are done. The stored runs must
// be the local ones — the same λ, metrics (bit for bit) and ledgers — and the dock must show the
// job as stored. DPMIX_CLUSTER_SCREENSHOT=FILE.png saves the window with the dock at the end.
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/cluster_jobs_view.h"
#include "app/workbench/runs/engine_cluster.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "app/workbench/runs/job_runner.h"
#include "engine/project/project_opener.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "tests/support/local_slurm.h"
#include "tests/support/test_support.h"

#include <QDockWidget>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>

using namespace dpmix;
using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

namespace {

const std::string kSpec = R"({
  "name": "cluster-window",
)" + dpmix::testing::tinyStudyData() +
                          R"(  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.3},
  "stages": {"mixture": {"clip": 13, "batch": 40, "lr": 1.0, "steps": 20}},
  "seeds": [0]
})";

// The DP-MixMin runs of a project, by seed: λ, metrics (as IEEE-754 bits) and ledgers.
std::map<long long, std::string> dpMixMinRuns(const QString& file) {
    std::map<long long, std::string> out;
    auto project = project::ProjectFile::open(file.toStdString(), project::OpenMode::ReadOnly);
    if (!project) return out;
    for (const auto& r : project->runs().value()) {
        if (r.method != "dp-mixmin" || r.status != project::RunStatus::Done) continue;
        nlohmann::json j{{"task", r.task}, {"epsilon", r.epsilon ? *r.epsilon : -1.0}};
        for (const auto& m : project->metrics(r.id).value()) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, &m.value, sizeof bits);
            j["metrics"].push_back({m.name, m.className, bits});
        }
        for (const auto& l : project->lambdas(r.id).value()) j["lambdas"].push_back({l.kind, l.names, l.values});
        for (const auto& l : project->ledgers(r.id).value()) j["ledgers"].push_back(l.ledgerJson);
        out[r.seed] += j.dump() + "\n";
    }
    return out;
}

// The file with its write-ahead log (the window's runs may not be checkpointed yet) and models.
bool copyProject(const QString& from, const QString& to) {
    if (!QFile::copy(from, to)) return false;
    if (QFileInfo::exists(from + "-wal") && !QFile::copy(from + "-wal", to + "-wal")) return false;
    QProcess cp;  // the models folder (named by content), next to the file
    const QString models = from.chopped(6) + ".models";
    if (!QFileInfo::exists(models)) return true;
    cp.start("cp", {"-r", models, to.chopped(6) + ".models"});
    return cp.waitForFinished(10000) && cp.exitCode() == 0;
}

}  // namespace

class TestClusterWorkbench : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private Q_SLOTS:
    void initTestCase() {
        DPMIX_SKIP_WITHOUT_SLURM();
        dpmix::workbench::test::isolateSettings("tst_cluster_workbench");
        QVERIFY(dir_.isValid());
    }

    void aStudySubmittedFromTheWindowIsStoredAsTheLocalRun() {
        const std::string d = dir_.path().toStdString();
        dpmix::testing::writeStudyImages(d, "pub", 200, 1);
        dpmix::testing::writeStudyImages(d, "sens", 600, 2);
        std::ofstream(d + "/study.json") << kSpec;
        auto created = project::createProjectFromSpecFile(d + "/study.json", d + "/local.dpmix",
                                                          dpmix::testing::dataLayerSummarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        const QString local = dir_.filePath("local.dpmix");
        const QString cluster = dir_.filePath("cluster.dpmix");

        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        EngineClusterBackend slurm(dpmix::test_support::binaryDir() + "/bin/dpmix");
        runs.setClusterBackend(&slurm);
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.cluster = &slurm;
        services.confirmSpend = [](const SpendPreview&) { return true; };
        MainWindow w(services);
        w.resize(1400, 900);
        w.show();

        // 1. Here: Run DP-MixMin, reproducible, seeds 0 and 1 (the proxy is trained and stored).
        QCOMPARE(w.openFile(local), QString());
        widgets::RunParameters values = w.document()->values();
        values.seeds = QStringLiteral("0,1");
        values.reproducible = true;
        values.steps = 12;  // an Advanced value other than the spec's 20: it travels to the array tasks
        w.document()->reset(values);
        QTRY_VERIFY(runAction(w)->isEnabled());
        {
            QSignalSpy finished(jobRunner(w), &JobRunner::finished);
            w.requestRun();
            QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 5 * 60 * 1000);
            QVERIFY2(finished[0][1].value<JobOutcome>() == JobOutcome::Succeeded,
                     qPrintable(finished[0][2].toString()));
        }
        const auto expected = dpMixMinRuns(local);
        QCOMPARE(expected.size(), std::size_t(2));
        for (const auto& [seed, text] : expected)
            QVERIFY2(text.find(R"(\"steps\":12)") != std::string::npos, text.c_str());

        // 2. A copy of that project submits the same study: it reuses the same stored proxy, so the
        // only difference is where the seeds run.
        w.newProject();
        QVERIFY(copyProject(local, cluster));
        {
            auto copy = project::ProjectFile::open(cluster.toStdString());
            QVERIFY(copy);
        }
        QCOMPARE(w.openFile(cluster), QString());
        w.document()->reset(values);
        QTRY_VERIFY(w.runActions()->clusterAction()->isEnabled());
        clusterJobsView(w)->setPollIntervalMs(500);
        ClusterSubmission submission;
        submission.slurm.maxParallel = 2;
        QSignalSpy submitted(&runs, &EngineRunController::clusterJobSubmitted);
        QCOMPARE(w.runActions()->startOnCluster(RunKind::DpMixMin, submission), QString());
        QTRY_VERIFY_WITH_TIMEOUT(submitted.count() == 1, 3 * 60 * 1000);
        const QString job = submitted[0][0].toString();
        QVERIFY(QFileInfo(cluster + ".jobs/" + job + "/job.sbatch").exists());

        // 3. The dock follows the array and stores the job by itself when both tasks are done.
        QTreeWidget* tree = clusterJobsView(w)->tree();
        QTRY_VERIFY_WITH_TIMEOUT(
            tree->topLevelItemCount() == 1 && tree->topLevelItem(0)->text(7).startsWith("runs from"), 4 * 60 * 1000);
        QCOMPARE(tree->topLevelItem(0)->text(0), job);
        QCOMPARE(tree->topLevelItem(0)->text(3), QString("2 / 2"));
        QCOMPARE(tree->topLevelItem(0)->text(2), QString("stored"));

        // 4. The stored runs: the local ones plus the merged ones, which equal them seed by seed.
        const auto stored = dpMixMinRuns(cluster);
        QCOMPARE(stored.size(), std::size_t(2));
        for (const auto& [seed, text] : expected) {
            QVERIFY(stored.count(seed));
            QVERIFY2(
                stored.at(seed) == text + text,
                (stored.at(seed) + "\nexpected twice:\n" + text).c_str());  // the copy's local run, then the merged one
        }
        auto project = project::ProjectFile::open(cluster.toStdString(), project::OpenMode::ReadOnly);
        QVERIFY(project);
        auto chain = project->verifyChain();
        QVERIFY(chain && chain->ok);

        if (const QString shot = qEnvironmentVariable("DPMIX_CLUSTER_SCREENSHOT"); !shot.isEmpty()) {
            for (QDockWidget* dock : w.findChildren<QDockWidget*>())
                if (dock->objectName() == "clusterJobsDock") dock->raise();
            tree->topLevelItem(0)->setExpanded(true);
            QTest::qWait(200);
            QVERIFY(w.grab().save(shot));
        }
    }
};

QTEST_MAIN(TestClusterWorkbench)
#include "tst_cluster_workbench.moc"
