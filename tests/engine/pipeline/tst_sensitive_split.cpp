// The sensitive data's train / validation / test split is one function for the image study, PSG
// and the AdaMix-R experiment: for the same seed all three train and evaluate on the same rows.
// They once differed (PSG and the experiment hashed the source's own classes, the study its task
// labels: train 1,995 vs 1,982 in a tiny study); the test first checks that this data tells the
// two keys apart, so it would catch the old behaviour. Also: a stored spec whose sensitive label
// set is not declared is refused before its data is read.
#include "engine/data/source_loader.h"
#include "engine/data/splits.h"
#include "engine/experiment_runs/adamix_experiment_stage.h"
#include "engine/experiment_runs/psg_stage.h"
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/sensitive_split.h"
#include "engine/project/spec_json.h"
#include "engine/train/model.h"
#include "tiny_image_study.h"

#include "tests/support/unit_test.h"

#include <string>
#include <vector>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::experiment_runs;

namespace {

// Sensitive classes a–d with two derived tasks (ab, ac); "ext" (classes w–z) trains the
// AdaMix-R experiment's extractor; a small PSG section; seed 7.
const std::string kSpec = R"({
  "name": "tiny-split",
)" + testing::tinyStudySources(true) +
                          R"(  "tasks": {
    "public": [{"name": "a", "classes": ["a"], "source": "pub"}, {"name": "b", "classes": ["b"], "source": "pub"}],
    "sensitive": [{"name": "ab", "classes": ["a", "b"]}, {"name": "ac", "classes": ["a", "c"]}]
  },
  "psg": {"images_per_class": 1, "iterations": 1, "batch_loop": 1, "batch": 16,
          "network_width": 4, "network_depth": 2, "evaluations": 1, "evaluation_epochs": 1},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.3},
  "seeds": [7]
})";

std::vector<long long> asLongLong(const std::vector<std::size_t>& rows) { return {rows.begin(), rows.end()}; }

}  // namespace

class TestSensitiveSplit : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

private Q_SLOTS:
    void initTestCase() {
        train::setTorchThreads(1);
        QVERIFY(dir_.isValid());
        testing::writeStudyImages(dir_.path(), "pub", 120, 1);
        testing::writeStudyImages(dir_.path(), "ext", 160, 3);
        testing::writeStudyImages(dir_.path(), "sens", 400, 2);
    }

    void theStudyPsgAndTheAdamixExperimentSplitTheSameRows() {
        auto project = testing::createProjectFromSpecText(dir_.path(), "split", kSpec);
        const auto& spec = project.spec();
        const auto sources = project.sources().value();
        auto study = loadImageStudy(sources, spec, 7);
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        const auto& want = study->sensitiveSplit;
        QVERIFY(!want.train.empty() && !want.test.empty());

        const project::SourceRecord* sens = nullptr;
        for (const auto& s : sources)
            if (s.role == project::SourceRole::Sensitive) sens = &s;
        QVERIFY(sens);
        auto raw = data::loadImageSource({sens->name, sens->loader, sens->path, sourceOptions(spec, sens->name)});
        QVERIFY(raw.ok());
        // The data tells the keys apart: the source's own classes split other rows.
        data::SplitGrouping own;
        own.keys = data::contentKeys(*raw);
        const auto old = data::trainValidationTestSplit(raw->size(), 7, own).value();
        QVERIFY(old.train != want.train);

        auto shared = sensitiveSplitOfSource(*raw, spec, sens->name, 7);
        QVERIFY2(shared.ok(), shared.ok() ? "" : shared.error().message.c_str());
        QVERIFY(shared->train == want.train);
        QVERIFY(shared->validation == want.validation);
        QVERIFY(shared->test == want.test);

        PsgStageOptions psg;
        psg.references = false;
        psg.reproducible = true;
        auto generated = runPsgStage(project, psg);
        QVERIFY2(generated.ok(), generated.ok() ? "" : generated.error().message.c_str());
        QCOMPARE(generated->trainExamples, static_cast<long long>(want.train.size()));
        QCOMPARE(generated->testExamples, static_cast<long long>(want.test.size()));

        AdamixExperimentOptions adamix;
        adamix.grid.shots = {1};
        adamix.grid.privatePerClass = {experiments::kAllPrivate};
        adamix.grid.epsilons = {1.0};
        adamix.grid.seeds = 1;
        adamix.grid.steps = 2;
        adamix.grid.threads = 1;
        adamix.extractorEpochs = 1;
        auto prepared = prepareAdamixExperiment(project, adamix);
        QVERIFY2(prepared.ok(), prepared.ok() ? "" : prepared.error().message.c_str());
        QVERIFY(prepared->input.poolSourceIndex == asLongLong(want.train));
        QCOMPARE(static_cast<std::size_t>(prepared->input.testLabels.size()), want.test.size());
    }

    // A project an older dpmix created from a sensitive IDX source without a class list still
    // opens, but no stage reads its data: the label set would come from the data (docs/DATA.md).
    void anUndeclaredLabelSetIsRefusedBeforeTheDataIsRead() {
        auto project = testing::createProjectFromSpecText(dir_.path(), "declared", kSpec);
        std::string old = kSpec;
        const std::string classes = R"("labels": "sens-labels.idx", "classes": "a,b,c,d")";
        old.replace(old.find(classes), classes.size(), R"("labels": "sens-labels.idx")");
        QVERIFY(!project::parseProjectSpec(old, {dir_.path(), {}, true}, "new.json").ok());  // a new spec: refused
        auto stored =
            project::parseProjectSpec(old, {dir_.path(), {}, false, false, privacy::Accountant::Rdp}, "stored");
        QVERIFY2(stored.ok(), stored.ok() ? "" : stored.error().message.c_str());
        auto study = loadImageStudy(project.sources().value(), *stored, 7);
        QVERIFY(!study.ok());
        QVERIFY2(study.error().message.find("sensitive.options.classes: missing") != std::string::npos,
                 study.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestSensitiveSplit)
#include "tst_sensitive_split.moc"
