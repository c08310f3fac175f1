// A study whose fine-tuning mechanism is AdaMix-R, from the panel to the ledger (docs/ADAMIX.md,
// "As a study's fine-tuning mechanism"; docs/WORKBENCH.md, "The parameter panel"): the panel
// shows AdaMix-R's settings instead of DP-SGD's clip and batch, an edit of T is undoable and
// saved, the request carries T and η and no clip or batch, the engine refuses DP-SGD's values
// for AdaMix-R (and AdaMix-R's for DP-SGD), and a real tiny study run through the workbench's
// request path records the panel's T and η in its ledger entry and config.
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/parameters/working_settings.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "app/workbench/runs/run_requests.h"
#include "engine/pipeline/study_runner.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_opener.h"
#include "engine/study_plan/run_options.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "widgets/parameter_panel.h"

#include <nlohmann/json.hpp>

#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <fstream>

using namespace dpmix;
using namespace dpmix::workbench;
using widgets::ParameterField;

namespace {

// The tiny generated study with AdaMix-R fine-tuning: 2 shots per class from "pub", T = 6, η = 1, r = 3.
std::string adamixSpec() {
    return R"({"name": "tiny-adamix",
)" + testing::tinyStudyData() +
           R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3, "reproducible": true, "accountant": "rdp"},
  "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 5},
             "pretrain": {"batch": 32, "lr": 0.1, "steps": 2},
             "finetune": {"mechanism": "adamix-r", "public_shots": 2, "shots_source": "pub",
                          "steps": 6, "lr": 1.0, "rank": 3, "clip_quantile": 0.4, "q": 0.5}},
  "seeds": [0]
})";
}

bool shown(const widgets::ParameterPanel& panel, QWidget* w) { return w && w->isVisibleTo(&panel); }

}  // namespace

class TstAdamixFinetuneSettings : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_;

    widgets::RunParameters projectParameters() {
        EngineProjectStore store(summarizeWithDataLayer);
        auto opened = store.open(project_);
        if (!opened) qFatal("%s", opened.error().message.c_str());
        return *opened;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path().toStdString();
        testing::writeStudyImages(d, "pub", 200, 1);
        testing::writeStudyImages(d, "sens", 600, 2);
        std::ofstream(d + "/tiny.json") << adamixSpec();
        project_ = dir_.filePath("tiny.dpmix");
        auto created = project::createProjectFromSpecFile(d + "/tiny.json", project_.toStdString(),
                                                          testing::dataLayerSummarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
    }

    void theProjectGivesTheSpecsAdamixSettings() {
        const widgets::RunParameters p = projectParameters();
        QVERIFY(p.finetuneMechanism == widgets::FinetuneMechanism::AdamixR);
        QVERIFY(p.finetunesWithAdamix());
        QCOMPARE(p.adamixSteps, 6);
        QCOMPARE(p.adamixEta, 1.0);
        QCOMPARE(p.adamixShots, 2);
        QCOMPARE(p.adamixShotsSource, QStringLiteral("pub"));
        QCOMPARE(p.adamixRank, 3);
        QCOMPARE(p.adamixClipQuantile, 0.4);
        QCOMPARE(p.adamixQ, 0.5);
    }

    void thePanelShowsAdamixFieldsAndHidesClipAndBatch() {
        widgets::ParameterPanel panel;
        // A DP-SGD study (the defaults) shows DP-SGD's fields and none of AdaMix-R's.
        QVERIFY(shown(panel, panel.editorFor(ParameterField::FinetuneClip)));
        QVERIFY(shown(panel, panel.editorFor(ParameterField::FinetuneBatch)));
        QVERIFY(!shown(panel, panel.editorFor(ParameterField::AdamixSteps)));
        QVERIFY(!shown(panel, panel.adamixSpecLabel("shots")));
        QCOMPARE(panel.finetuneMechanismLabel()->text(), QStringLiteral("DP-SGD"));

        panel.setValues(projectParameters());
        for (ParameterField f : {ParameterField::FinetuneClip, ParameterField::FinetuneBatch,
                                 ParameterField::FinetuneLearningRate, ParameterField::FinetuneSteps})
            QVERIFY2(!shown(panel, panel.editorFor(f)), qPrintable(widgets::fieldKey(f)));
        QVERIFY(shown(panel, panel.editorFor(ParameterField::AdamixSteps)));
        QVERIFY(shown(panel, panel.editorFor(ParameterField::AdamixEta)));
        QVERIFY(panel.finetuneGroup()->title().contains("AdaMix-R"));
        QVERIFY(panel.finetuneMechanismLabel()->text().startsWith("AdaMix-R"));
        QCOMPARE(qobject_cast<QSpinBox*>(panel.editorFor(ParameterField::AdamixSteps))->value(), 6);
        QCOMPARE(qobject_cast<QDoubleSpinBox*>(panel.editorFor(ParameterField::AdamixEta))->value(), 1.0);
        const std::pair<const char*, const char*> specValues[] = {
            {"shots", "2"}, {"source", "pub"}, {"rank", "3"}, {"clip-quantile", "0.4"}, {"q", "0.5"}};
        for (const auto& [key, text] : specValues) {
            QLabel* label = panel.adamixSpecLabel(key);
            QVERIFY2(shown(panel, label), key);
            QCOMPARE(label->text(), QString::fromLatin1(text));
        }
    }

    void anEditOfTIsUndoableAndSaved() {
        widgets::ParameterPanel panel;
        ParameterDocument document;
        connect(&panel, &widgets::ParameterPanel::fieldEdited, &document, &ParameterDocument::edit);
        connect(&document, &ParameterDocument::valuesChanged, &panel, [&] { panel.setValues(document.values()); });
        document.reset(projectParameters());
        auto* steps = qobject_cast<QSpinBox*>(panel.editorFor(ParameterField::AdamixSteps));
        QVERIFY(steps);
        steps->setValue(9);  // as the user's typing does
        QCOMPARE(document.values().adamixSteps, 9);
        QCOMPARE(document.undoStack()->count(), 1);
        QVERIFY(document.undoStack()->undoText().contains("AdaMix-R steps T"));
        // The working settings File ▸ Save stores hold T, and reopening restores it.
        const QJsonObject saved = workingSettingsJson(document.values());
        QCOMPARE(saved.value("adamix-steps").toInt(), 9);
        QCOMPARE(withWorkingSettings(projectParameters(), saved).adamixSteps, 9);

        document.undoStack()->undo();
        QCOMPARE(document.values().adamixSteps, 6);
        QCOMPARE(steps->value(), 6);
        document.undoStack()->redo();
        QCOMPARE(steps->value(), 9);
    }

    void anOutOfRangeTIsAnErrorOnItsField() {
        widgets::RunParameters p = projectParameters();
        p.adamixSteps = 0;
        p.finetuneClip = -1.0;  // DP-SGD's clip is not AdaMix-R's: not checked, not shown
        const PrivacyPlan plan = planPrivacy(p);
        QVERIFY(!plan.valid);
        bool onSteps = false;
        for (const auto& m : plan.messages) {
            QVERIFY2(m.field != ParameterField::FinetuneClip, qPrintable(m.text));
            if (m.field == ParameterField::AdamixSteps && m.severity == widgets::MessageSeverity::Error) {
                onSteps = true;
                QVERIFY2(m.text.contains("steps"), qPrintable(m.text));
            }
        }
        QVERIFY(onSteps);
    }

    void theRequestCarriesTAndEtaAndNoClipOrBatch() {
        widgets::RunParameters p = projectParameters();
        p.adamixSteps = 4;
        p.adamixEta = 0.5;
        for (const auto& request : {studyRequestFor(p), compareRequestFor(p)}) {
            QVERIFY(request.ok());
            QVERIFY(!request->finetune);
            QVERIFY(request->adamix);
            QCOMPARE(request->adamix->steps, 4LL);
            QCOMPARE(request->adamix->eta, 0.5);
        }
        // A DP-SGD study's request is the other way round.
        p.finetuneMechanism = widgets::FinetuneMechanism::DpSgd;
        const auto dpSgd = studyRequestFor(p);
        QVERIFY(dpSgd->finetune && !dpSgd->adamix);
        QCOMPARE(dpSgd->finetune->clip, p.finetuneClip);
    }

    void theEngineRefusesValuesOfAnotherMechanism() {
        auto file = project::ProjectFile::open(project_.toStdString()).value();
        const std::size_t runsBefore = file.runs().value().size();
        StudyRequest request;
        request.stages = {"proxies", "mixture", "downstream"};
        request.methods = {"dp-mixmin"};
        request.rho = 0.3;
        request.finetune = FinetuneSettings{};  // DP-SGD's clip 2, batch 256, lr 1e-4, T 1000
        const auto status = runStudyWithEngine(file, request, {}, {}, {});
        QVERIFY(status);
        QVERIFY2(status->message.find("clip 2") != std::string::npos, status->message.c_str());
        QVERIFY2(status->message.find("\"adamix-r\"") != std::string::npos, status->message.c_str());
        QCOMPARE(file.runs().value().size(), runsBefore);  // nothing trained or stored

        // And AdaMix-R's T and η for a DP-SGD study.
        project::ProjectSpec dpSgd = file.spec();
        dpSgd.finetune.mechanism = methods::FinetuneMechanism::DpSgd;
        pipeline::StudyRunOptions options;
        options.adamix = pipeline::AdamixStageValues{4, 0.5};
        const auto refused = study_plan::checkStageOptionsFitSpec(dpSgd, options);
        QVERIFY(refused);
        QVERIFY2(refused->message.find("\"dp-sgd\"") != std::string::npos, refused->message.c_str());
        QVERIFY(!study_plan::checkStageOptionsFitSpec(file.spec(), options));
        // Applied, T and η replace the spec's; the rest of AdaMix-R's settings stay.
        const project::ProjectSpec applied = study_plan::withStageOptions(file.spec(), options);
        QCOMPARE(applied.finetune.steps, 4LL);
        QCOMPARE(applied.finetune.lr, 0.5);
        QCOMPARE(applied.finetune.publicShots, 2LL);
        QCOMPARE(applied.finetune.adamixQ, 0.5);
    }

    void aTinyStudyRunsWithThePanelsTAndEta() {
        ParameterDocument document;
        document.reset(projectParameters());
        document.edit(ParameterField::AdamixSteps, 4);
        document.edit(ParameterField::AdamixEta, 0.5);
        auto built = studyRequestFor(document.values());
        QVERIFY(built.ok());
        StudyRequest request = *built;
        request.stages = {"proxies", "mixture", "downstream"};
        request.methods = {"dp-mixmin"};
        request.tasks = {"ab"};
        request.device = "cpu";

        auto file = project::ProjectFile::open(project_.toStdString()).value();
        const auto status = runStudyWithEngine(file, request, {}, {}, {});
        QVERIFY2(!status, status ? status->message.c_str() : "");
        int checked = 0;
        for (const auto& run : file.runs().value()) {
            if (run.method != "dp-mixmin" || run.status != project::RunStatus::Done) continue;
            const auto config = nlohmann::json::parse(run.configJson);
            if (config.value("stage", "") != "downstream") continue;
            QCOMPARE(config["finetune_mechanism"].get<std::string>(), std::string("adamix-r"));
            QCOMPARE(config["adamix"]["steps"].get<long long>(), 4LL);
            QCOMPARE(config["adamix"]["eta"].get<double>(), 0.5);
            QCOMPARE(config["adamix"]["q"].get<double>(), 0.5);
            // The planned ledger, stored before any work on the data, then the one the run kept.
            const auto records = file.ledgers(run.id).value();
            QCOMPARE(records.size(), std::size_t(2));
            const auto ledger = privacy::ledgerFromJson(records.back().ledgerJson).value();
            const privacy::LedgerEntry& entry = ledger.entries().back();
            QCOMPARE(entry.stage, std::string("adamix"));
            QCOMPARE(entry.steps, static_cast<long long>(document.values().adamixSteps));
            QCOMPARE(entry.q, 0.5);
            QVERIFY2(entry.assumptions.find("T = 4 steps") != std::string::npos, entry.assumptions.c_str());
            ++checked;
        }
        QCOMPARE(checked, 1);

        // Re-running that run asks for the same T and η (as AdaMix-R's, never as DP-SGD's).
        for (const auto& run : file.runs().value())
            if (run.method == "dp-mixmin" && run.configJson.find("\"downstream\"") != std::string::npos) {
                const auto plan = rerunPlanFor(run, std::nullopt);
                QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
                QVERIFY(plan->study && plan->study->adamix && !plan->study->finetune);
                QCOMPARE(plan->study->adamix->steps, 4LL);
                QCOMPARE(plan->study->adamix->eta, 0.5);
            }
    }
};

QTEST_MAIN(TstAdamixFinetuneSettings)
#include "tst_adamix_finetune_settings.moc"
