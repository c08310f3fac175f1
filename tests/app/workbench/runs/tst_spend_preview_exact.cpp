// The spend preview is what the run charges: on a tiny generated study (no downloaded data), the
// workbench with the engine's planner previews "Compare with baselines" — DP-MixMin's λ and every
// privately fine-tuned model, on the realised splits of two seeds — and after the run the data
// set's budget holds exactly the previewed releases and ε. The panel's estimate (no planner) only
// counts the λ's, a lower bound, and says so. A run the engine would refuse (a fine-tuning batch
// larger than split B) is not previewed as a spend: the engine's refusal stands.
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "engine/project/project_budget.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "tests/engine/pipeline/tiny_image_study.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace dpmix;
using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

namespace {

const std::string kSpec = R"({
  "name": "tiny-preview",
)" + testing::tinyStudyData() +
                          R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3, "accountant": "rdp"},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 5},
             "pretrain": {"batch": 16, "lr": 0.1, "steps": 2},
             "finetune": {"clip": 2, "batch": 16, "lr": 0.001, "steps": 3}},
  "seeds": [0]
})";

// The panel for a quick comparison at ε = 2 on seeds 0 and 1 (the spec's stage values).
widgets::RunParameters quickComparison(widgets::RunParameters v) {
    v.epsilon = 2.0;
    v.rho = 0.3;
    v.seeds = QStringLiteral("0, 1");
    v.accountant = widgets::AccountantChoice::Rdp;
    v.reproducible = true;
    v.clipNorm = 13.0;
    v.batchSize = 20;
    v.learningRate = 1.0;
    v.steps = 5;
    v.pretrainBatch = 16;
    v.pretrainSteps = 2;
    v.finetuneBatch = 16;
    v.finetuneSteps = 3;
    v.finetuneLearningRate = 0.001;
    return v;
}

}  // namespace

class TstSpendPreviewExact : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_;

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_spend_preview_exact");
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path().toStdString();
        testing::writeStudyImages(d, "pub", 200, 1);
        testing::writeStudyImages(d, "sens", 600, 2);
        testing::createProjectFromSpecText(d, "preview", kSpec);
        project_ = QString::fromStdString(d + "/preview.dpmix");
    }

    void thePreviewIsWhatTheRunCharges() {
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        runs.setSpendPlanFunction(planStudySpendWithEngine);
        runs.setEstimateFunction(estimateStudyWithEngine);
        QList<SpendPreview> asked;
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.confirmSpend = [&](const SpendPreview& p) {
            asked << p;
            return true;
        };
        MainWindow w(services);
        QCOMPARE(w.openFile(project_), QString());
        const auto values = quickComparison(w.document()->values());
        w.document()->reset(values);

        // The panel's estimate first: the λ's only (2 seeds × 2 tasks), fine-tuning not shown.
        const auto estimate = previewSpend(*w.project(), values, planPrivacy(values), true);
        QVERIFY2(estimate.ok(), estimate.ok() ? "" : estimate.error().message.c_str());
        QCOMPARE(estimate->releases, 4LL);
        QVERIFY(estimate->fineTuningNotShown);
        QVERIFY(!estimate->exact);

        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        QCOMPARE(w.runActions()->startCompareWithBaselines(), QString());
        QCOMPARE(asked.size(), 1);
        const SpendPreview preview = asked.front();
        QVERIFY(preview.exact);
        QVERIFY(!preview.fineTuningNotShown);
        QCOMPARE(preview.before, 0.0);
        // Per seed and task: DP-MixMin's λ, and the models of DP-MixMin, Uniform and Random Init
        // (Random Search and λ* are not private: no release).
        QCOMPARE(preview.releases, 16LL);
        QVERIFY(spendPreviewText(preview).contains("what the run reserves"));
        // The dialog says how long the run would take here, from a step timed now (docs/MANUAL.md, "Running").
        QVERIFY2(preview.duration.startsWith("Estimated time on this machine: about "), qPrintable(preview.duration));
        QVERIFY(spendPreviewText(preview).contains("measured at"));
        QVERIFY(preview.after > estimate->after);

        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 10 * 60 * 1000);
        QVERIFY2(finished[0][1].value<JobOutcome>() == JobOutcome::Succeeded, qPrintable(finished[0][2].toString()));
        auto file = project::ProjectFile::open(project_.toStdString());
        QVERIFY(file.ok());
        auto spent = project::projectBudget(*file);
        QVERIFY2(spent.ok(), spent.ok() ? "" : spent.error().message.c_str());
        QCOMPARE(static_cast<long long>(spent->releases.size()), preview.releases);
        QVERIFY2(std::fabs(spent->total.epsilon - preview.after) <= 1e-9 * preview.after,
                 qPrintable(QStringLiteral("spent %1, previewed %2")
                                .arg(spent->total.epsilon, 0, 'g', 17)
                                .arg(preview.after, 0, 'g', 17)));
        for (std::size_t i = 0; i < spent->releases.size(); ++i)
            QVERIFY2(spent->releases[i].entry.epsilon > 0.0, spent->releases[i].label.c_str());
    }

    // A downstream run's context menu audits its fine-tuning in one training — the run's mechanism, task, seed and ε
    // as the claim (not the panel's), stored as a one-run audit; runs that fine-tuned nothing are refused with the
    // reason (docs/AUDIT.md, "The one-run audit of a study's fine-tuning"). Runs after thePreviewIsWhatTheRunCharges.
    void aDownstreamRunsFineTuningIsAuditedInOneTraining() {
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        runs.setAuditFunction(runAuditWithEngine);
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        MainWindow w(services);
        QCOMPARE(w.openFile(project_), QString());
        long long downstream = 0, proxy = 0;
        for (const auto& r : w.project()->runs) {
            if (r.run.method == "proxy") proxy = r.run.id;
            if (r.run.method == "dp-mixmin" && r.run.configJson.find("finetune_mechanism") != std::string::npos)
                downstream = r.run.id;
        }
        QVERIFY(downstream > 0 && proxy > 0);
        QVERIFY(w.runActions()->oneRunAuditRefusal(proxy).contains("fine-tuned nothing privately"));
        QCOMPARE(w.runActions()->oneRunAuditRefusal(downstream), QString());
        w.document()->edit(widgets::ParameterField::Epsilon, 5.0);  // the panel says otherwise: not the claim
        AuditSettings settings;
        settings.canaries = 40;
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        QCOMPARE(w.runActions()->startOneRunAuditOf(downstream, settings), QString());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 5 * 60 * 1000);
        QVERIFY2(finished[0][1].value<JobOutcome>() == JobOutcome::Succeeded, qPrintable(finished[0][2].toString()));
        auto file = project::ProjectFile::open(project_.toStdString()).value();
        const auto all = file.runs().value();
        QCOMPARE(all.back().method, std::string("audit"));
        const auto record = file.audits(all.back().id).value().at(0);
        QCOMPARE(record.name, std::string("finetune-one-run-dp-sgd-large-norm"));
        QVERIFY2(record.detailsJson.find("\"kind\":\"one-run\"") != std::string::npos, record.detailsJson.c_str());
        QVERIFY(all.back().epsilon && std::abs(*all.back().epsilon - 2.0) < 1e-12);  // the audited run's ε
    }

    void aRunTheEngineRefusesIsNotPreviewedAsASpend() {
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        runs.setSpendPlanFunction(planStudySpendWithEngine);
        int asked = 0;
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.confirmSpend = [&](const SpendPreview&) {
            ++asked;
            return false;
        };
        MainWindow w(services);
        QCOMPARE(w.openFile(project_), QString());
        auto values = quickComparison(w.document()->values());
        values.finetuneBatch = 100000;  // more than split B holds: q > 1
        RunAction action;
        action.kind = RunKind::CompareBaselines;
        action.parameters = values;
        auto planned = runs.plannedReleases(action);
        QVERIFY(planned.has_value());
        QVERIFY(!planned->ok());
        QVERIFY2(planned->error().message.find("exceeds") != std::string::npos, planned->error().message.c_str());
        QVERIFY(w.confirmSpending(action, planPrivacy(values)));  // the engine's refusal stands at start
        QCOMPARE(asked, 0);
    }

    // After Run DP-MixMin, Compare with baselines reuses the released λ (docs/PRIVACY.md, "Reusing a released
    // mixture") — its preview counts the fine-tunings only — unless Run ▸ Learn the mixture again is checked, which
    // plans (and spends) the mixtures again. Fails on the old code, which always planned them.
    void compareReusesTheReleasedMixtureUnlessAsked() {
        const std::string d = dir_.path().toStdString();
        testing::createProjectFromSpecText(d, "reuse", kSpec);
        EngineProjectStore store(summarizeWithDataLayer);
        EngineRunController runs(runStudyWithEngine);
        runs.setSpendPlanFunction(planStudySpendWithEngine);
        WorkbenchServices services{&runs, &store, [] { return QStringLiteral("test"); }};
        services.confirmSpend = [](const SpendPreview&) { return true; };
        MainWindow w(services);
        QCOMPARE(w.openFile(QString::fromStdString(d + "/reuse.dpmix")), QString());
        const auto values = quickComparison(w.document()->values());
        w.document()->reset(values);
        QSignalSpy finished(jobRunner(w), &JobRunner::finished);
        w.requestRun();  // Run DP-MixMin: the λ of 2 seeds × 2 tasks, released
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 5 * 60 * 1000);
        QVERIFY2(finished[0][1].value<JobOutcome>() == JobOutcome::Succeeded, qPrintable(finished[0][2].toString()));

        RunAction compare;
        compare.kind = RunKind::CompareBaselines;
        compare.parameters = values;
        auto reused = runs.plannedReleases(compare);
        QVERIFY(reused && reused->ok());
        QCOMPARE(static_cast<long long>((*reused)->size()), 12LL);  // 3 private fine-tunings × 2 seeds × 2 tasks
        const auto said = previewPlannedSpend(*w.project(), values, **reused);
        QVERIFY(said.ok());
        QVERIFY2(said->why.contains("12 privately fine-tuned model(s); no new DP-MixMin λ: the comparison reuses"),
                 qPrintable(said->why));
        for (const auto& r : **reused) QVERIFY2(r.entry.split != "A", r.label.c_str());
        QVERIFY(!w.runActions()->relearnMixtureAction()->isChecked());  // reuse is the default

        w.runActions()->relearnMixtureAction()->setChecked(true);
        compare.relearnMixture = true;
        auto again = runs.plannedReleases(compare);
        QVERIFY(again && again->ok());
        QCOMPARE(static_cast<long long>((*again)->size()), 16LL);  // and the 4 mixtures again
    }
};

QTEST_MAIN(TstSpendPreviewExact)
#include "tst_spend_preview_exact.moc"
