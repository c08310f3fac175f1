// dpmix-workbench: the desktop program.
// `dpmix-workbench [--read-only] [FILE] [--screenshot OUT.png [--view NAME]]`.
#include "app/workbench/main_window.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/project/project_store.h"
#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/runs/engine_cluster.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "app/workbench/runs/run_controller.h"
#include "app/workbench/screenshot.h"
#include "app/workbench/study/engine_source_preview.h"
#include "app/workbench/study/engine_study_creator.h"
#include "engine/core/file_size_limit.h"
#include "engine/core/program_guard.h"
#include "engine/core/version.h"
#include "engine/project/schema.h"
#include "engine/runtime/runtime_info.h"
#include "engine/runtime/training_process.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QTextStream>

#include <cstring>

namespace {
// --screenshot renders without a display: pick the offscreen platform before QApplication
// exists (it reads QT_QPA_PLATFORM once), unless the user chose one.
void preferOffscreenForScreenshots(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--screenshot") == 0 && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
}

// The names QSettings, the window titles and --version use.
void nameApplication() {
    QApplication::setOrganizationName(QStringLiteral("dpmix"));
    QApplication::setApplicationName(QStringLiteral("dpmix-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("dpmix workbench"));
    QApplication::setApplicationVersion(QString::fromStdString(dpmix::versionString()));
    QApplication::setDesktopFileName(QStringLiteral("dpmix-workbench"));
}

// Before a run spends privacy budget: what it spends, before → after, and Run / Cancel (or, over
// the cap, why it is refused).
bool confirmSpendInDialog(const dpmix::workbench::SpendPreview& preview) {
    QWidget* parent = QApplication::activeWindow();
    const QString text = dpmix::workbench::spendPreviewText(preview);
    if (preview.overCap) {
        QMessageBox::warning(parent, QObject::tr("Privacy budget exceeded"), text);
        return false;
    }
    return QMessageBox::question(parent, QObject::tr("Spend privacy budget?"), text,
                                 QMessageBox::Ok | QMessageBox::Cancel, QMessageBox::Ok) == QMessageBox::Ok;
}

int runWorkbench(int argc, char** argv) {
    dpmix::reportFileSizeLimitAsError();
    preferOffscreenForScreenshots(argc, argv);
    QApplication app(argc, argv);
    nameApplication();

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("dpmix workbench: differentially private learning with public data"));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A .dpmix project to open."),
                              QStringLiteral("[FILE]"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window offscreen to OUT.png and exit."),
                                        QStringLiteral("OUT.png"));
    const QCommandLineOption view(
        QStringLiteral("view"),
        QStringLiteral("With --screenshot, the view to show: %1.").arg(dpmix::workbench::screenshotViews().join(", ")),
        QStringLiteral("NAME"), QStringLiteral("main"));
    const QCommandLineOption readOnly(QStringLiteral("read-only"),
                                      QStringLiteral("Open FILE read-only: no runs, nothing saved."));
    cli.addOption(readOnly);
    cli.addOption(screenshot);
    cli.addOption(view);
    cli.process(app);

    dpmix::workbench::EngineRunController runs(dpmix::workbench::runStudyWithEngine);
    runs.setEstimateFunction(dpmix::workbench::estimateStudyWithEngine);
    runs.setAuditFunction(dpmix::workbench::runAuditWithEngine);
    runs.setPsgFunction(dpmix::workbench::runPsgWithEngine);
    runs.setSpendPlanFunction(dpmix::workbench::planStudySpendWithEngine);  // exact spend previews
    dpmix::workbench::EngineClusterBackend cluster;  // Run on cluster…, the Cluster jobs dock (Slurm)
    runs.setClusterBackend(&cluster);
    dpmix::workbench::EngineProjectStore projects(dpmix::workbench::summarizeWithDataLayer);
    dpmix::workbench::WorkbenchServices services{
        &runs, &projects, [] {
            // Probed once, on first use (the probe runs a small matmul).
            static const QString version = QString::fromStdString(dpmix::runtime::probeRuntime().torchVersion);
            return version;
        }};
    services.cluster = &cluster;
    services.cudaAvailable = [] { return dpmix::runtime::probeRuntime().cudaAvailable; };
    // Source registration (Study menu, drops on the project tree): previews and project creation.
    const dpmix::workbench::EngineSourcePreviewer previews;
    dpmix::workbench::EngineStudyCreator studies(dpmix::workbench::summarizeWithDataLayer);
    services.sources = &previews;
    services.studies = &studies;
    // Before a run spends privacy budget: what it spends, before → after, and Run / Cancel (or,
    // over the cap, why it is refused).
    services.confirmSpend = confirmSpendInDialog;
    dpmix::workbench::MainWindow window(services);

    QTextStream err(stderr);
    if (const QStringList files = cli.positionalArguments(); !files.isEmpty()) {
        if (const QString error = window.openFile(files.first(), cli.isSet(readOnly)); !error.isEmpty()) {
            err << error << Qt::endl;
            if (cli.isSet(screenshot)) return 1;  // a screenshot of an empty window would mislead
        }
    }
    if (cli.isSet(screenshot)) {
        const QString error = dpmix::workbench::renderScreenshot(window, cli.value(screenshot), cli.value(view));
        if (!error.isEmpty()) {
            err << "dpmix-workbench: " << error << Qt::endl;
            return 2;
        }
        return 0;
    }
    window.show();
    return app.exec();
}

}  // namespace

int main(int argc, char** argv) {
    dpmix::runtime::setUpForTraining(argv);  // before anything else: it may restart the program
    // An exception escaping the program (or the event loop, or a thread) is one line and exit 2.
    return dpmix::guardedMain("dpmix-workbench", [&] { return runWorkbench(argc, argv); });
}
