#include "app/workbench/screenshot.h"

#include "widgets/parameter_panel.h"

#include "app/workbench/main_window.h"
#include "app/workbench/runs/job_runner.h"
#include "app/workbench/runs/run_controller.h"
#include "app/workbench/views/ledger_view.h"
#include "app/workbench/views/result_page_view.h"
#include "widgets/bar_chart_widget.h"
#include "widgets/line_chart_widget.h"

#include <QApplication>
#include <QDeadlineTimer>
#include <QLabel>
#include <QPixmap>
#include <QTabWidget>
#include <QThread>

#include <cmath>
#include <cstdio>

namespace dpmix::workbench {
namespace {

void settle(MainWindow& window, int minimumMs) {
    QDeadlineTimer minimum(minimumMs), limit(5000);
    while (!limit.hasExpired() && (!minimum.hasExpired() || !window.calculationsIdle())) {
        QApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
}

void addExampleBarChart(MainWindow& window) {
    auto* chart = new widgets::BarChartWidget;
    chart->setTitle(QObject::tr("Example data: macro AUC by method"));
    chart->setAxisLabels(QString(), QObject::tr("macro AUC"));
    widgets::BarChartData data;
    data.categories = {"ε = 1", "ε = 2", "ε = 5"};
    data.series = {{"DP-MixMin", {0.712, 0.731, 0.745}, {0.006, 0.005, 0.004}},
                   {"Uniform", {0.690, 0.702, 0.716}, {0.008, 0.007, 0.006}},
                   {"Random Init", {0.611, 0.634, 0.660}, {0.010, 0.009, 0.008}}};
    chart->setData(data);
    window.addAnalysisTab(chart, QObject::tr("Example: bar chart"));
}

void addExampleLineChart(MainWindow& window) {
    auto* chart = new widgets::LineChartWidget;
    chart->setTitle(QObject::tr("Example data: mixture loss per step (mean ± std over 5 seeds)"));
    chart->setAxisLabels(QObject::tr("step"), QObject::tr("mixture loss"));
    QList<widgets::LineSeries> series;
    for (int s = 0; s < 2; ++s) {
        widgets::LineSeries line{s == 0 ? "σ = 0.8" : "σ = 2.0", {}, {}, {}, {}};
        for (int t = 0; t <= 100; t += 5) {
            const double mean = 0.45 + 0.35 * std::exp(-t / (s == 0 ? 20.0 : 35.0));
            const double spread = 0.01 + 0.02 * (s + 1) * std::exp(-t / 60.0);
            line.x << t;
            line.mean << mean;
            line.lower << mean - spread;
            line.upper << mean + spread;
        }
        series << line;
    }
    chart->setSeries(series);
    window.addAnalysisTab(chart, QObject::tr("Example: line chart"));
}

void startExampleJobs(MainWindow& window) {
    auto slowStage = [](long long total) {
        return [total](const CancellationToken& token, const ProgressCallback& progress) -> Status {
            for (long long i = 0; i <= total && !token.isCancelled(); ++i) {
                report(progress, {"example", i, total, "example job"});
                QThread::msleep(20);
            }
            return std::nullopt;
        };
    };
    window.startStages({{QObject::tr("Example: mixture learning"), slowStage(400)}});
    window.findChild<JobRunner*>("jobRunner")->start(QObject::tr("Example: proxy training"), slowStage(1000));
}

}  // namespace

QStringList screenshotViews() { return MainWindow::viewNames() + QStringList{"bar-chart", "line-chart", "panel"}; }

QString renderScreenshot(MainWindow& window, const QString& outPath, const QString& view) {
    if (!screenshotViews().contains(view))
        return QStringLiteral("--view %1 is unknown: expected one of %2").arg(view, screenshotViews().join(", "));
    // "panel": the whole parameter panel, every section unscrolled (a tall window, the panel alone).
    if (view == "panel") window.resize(window.width(), 2000);
    window.show();
    if (view == "panel")
        window.showView("parameters");
    else if (view == "bar-chart")
        addExampleBarChart(window);
    else if (view == "line-chart")
        addExampleLineChart(window);
    else if (!window.showView(view))
        return QStringLiteral("--view %1 needs an open project with results (give FILE.dpmix)").arg(view);
    if (view == "jobs") startExampleJobs(window);
    // The ledger is shown with its verification done, as a user would check it.
    if (view == "ledger")
        if (auto* ledger = window.findChild<LedgerView*>()) ledger->verify();
    settle(window, view == "jobs" ? 1500 : 300);
    // A view without data shows its empty state: say so, so scripts can keep such a picture out
    // of the documentation (scripts/make-screenshots.sh).
    if (auto* page = qobject_cast<ResultPageView*>(window.findChild<QTabWidget*>("analysisTabs")->currentWidget());
        page && page->showsEmptyState())
        std::fprintf(stderr, "dpmix-workbench: --view %s shows its empty state: %s\n", qPrintable(view),
                     qPrintable(page->emptyState()->text()));
    const QPixmap pixmap =
        view == "panel" ? window.findChild<widgets::ParameterPanel*>("parameterPanel")->grab() : window.grab();
    const bool saved = pixmap.save(outPath);
    if (view == "jobs") {
        auto* runner = window.findChild<JobRunner*>("jobRunner");
        runner->cancelAll();
        runner->waitForAll();
    }
    if (!saved) return QStringLiteral("cannot write the screenshot to %1").arg(outPath);
    return {};
}

}  // namespace dpmix::workbench
