// Run ▸ Compute device: the choice reaches the run controller (and so every later run's request),
// survives a restart through QSettings, and CUDA cannot be chosen where there is none.
#include "app/workbench/runs/compute_device_menu.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/run_controller.h"
#include "tests/app/workbench/generated_project.h"

#include <QAction>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace dpmix::workbench;

namespace {

// Records what the menu tells the controller.
class RecordingController : public RunController {
public:
    dpmix::Result<QList<StageJob>> planRun(const dpmix::widgets::RunParameters&) override { return QList<StageJob>{}; }
    void setComputeDevice(const QString& device) override { told << device; }
    QStringList told;
};

QAction* action(ComputeDeviceMenu& menu, const QString& device) { return menu.findChild<QAction*>("device_" + device); }

}  // namespace

class TestComputeDeviceMenu : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QSettings().clear();
    }
    void cleanupTestCase() { QSettings().clear(); }

    void theDefaultIsAutomaticAndTheControllerKnowsIt() {
        QSettings().clear();
        RecordingController runs;
        ComputeDeviceMenu menu(&runs, false);
        QCOMPARE(menu.device(), QString("auto"));
        QCOMPARE(runs.told, QStringList{"auto"});
        QVERIFY(action(menu, "auto")->isChecked());
    }

    void cudaCannotBeChosenWithoutAGpu() {
        RecordingController runs;
        ComputeDeviceMenu without(&runs, false);
        QVERIFY(!action(without, "cuda")->isEnabled());
        QVERIFY(action(without, "cuda")->toolTip().contains("No CUDA GPU"));
        ComputeDeviceMenu with(&runs, true);
        QVERIFY(action(with, "cuda")->isEnabled());
    }

    void aChoiceReachesTheControllerAndSurvivesARestart() {
        QSettings().clear();
        RecordingController runs;
        {
            ComputeDeviceMenu menu(&runs, true);
            QSignalSpy changed(&menu, &ComputeDeviceMenu::deviceChanged);
            action(menu, "cpu")->trigger();
            QCOMPARE(menu.device(), QString("cpu"));
            QCOMPARE(runs.told.last(), QString("cpu"));
            QCOMPARE(changed.count(), 1);
            action(menu, "cuda")->trigger();
            QCOMPARE(runs.told.last(), QString("cuda"));
        }
        RecordingController later;
        ComputeDeviceMenu restarted(&later, true);
        QCOMPARE(restarted.device(), QString("cuda"));
        QCOMPARE(later.told, QStringList{"cuda"});
        // The GPU is gone at the next start: back to Automatic, not a choice that cannot run.
        RecordingController noGpu;
        ComputeDeviceMenu gone(&noGpu, false);
        QCOMPARE(gone.device(), QString("auto"));
        QCOMPARE(noGpu.told, QStringList{"auto"});
    }

    // The engine controller puts the device into the request of every job it plans: the study
    // function sees the menu's choice.
    void theEngineControllerPutsTheDeviceIntoEveryRequest() {
        QTemporaryDir dir;
        const QString path = dir.filePath("p.dpmix");
        testing::generateProject(path);
        std::vector<std::string> seen;
        EngineRunController controller([&seen](dpmix::project::ProjectFile&, const StudyRequest& request,
                                               const dpmix::ProgressCallback&, const dpmix::CancellationToken&,
                                               const StudyLog&) -> dpmix::Status {
            seen.push_back(request.device);
            return std::nullopt;
        });
        controller.setProject(path, false);
        for (const QString device : {"cpu", "auto"}) {
            ComputeDeviceMenu menu(&controller, false);
            action(menu, device)->trigger();
            auto jobs = controller.planRun(dpmix::widgets::RunParameters{});
            QVERIFY(jobs.ok());
            QVERIFY(!jobs->isEmpty());
            for (const StageJob& job : *jobs) QVERIFY(!job.work(dpmix::CancellationToken{}, {}));
        }
        QVERIFY(!seen.empty());
        QCOMPARE(seen.front(), std::string("cpu"));
        QCOMPARE(seen.back(), std::string("auto"));
    }
};

QTEST_MAIN(TestComputeDeviceMenu)
#include "tst_compute_device_menu.moc"
