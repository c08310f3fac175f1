// An image study with several public sources (docs/METHODS.md, "Several public sources"), on
// generated data: the components are (source, task) pairs named "source / task", the proxy and
// pretraining run over the union, every method stores its runs; sources of another shape need
// their rule, and a task over another source's class is refused before anything is written.
#include "engine/data/image_fit.h"
#include "engine/methods/method_plan.h"
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_opener.h"
#include "engine/project/spec_json.h"
#include "tiny_image_study.h"

#include "tests/support/unit_test.h"

#include <filesystem>
#include <fstream>

using namespace dpmix;
using namespace dpmix::pipeline;
namespace fs = std::filesystem;

namespace {

// A second public source: n side×side noise images in 2 classes "x", "y" (the sensitive tasks
// cannot be learned from it: it plays the irrelevant public data set).
void writeNoiseImages(const std::string& dir, const std::string& stem, int n, int side, std::uint64_t seed) {
    namespace fx = dpmix::data::fixtures;
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> pixels, labels;
    for (int i = 0; i < n; ++i) {
        labels.push_back(static_cast<std::uint8_t>(i % 2));
        for (int p = 0; p < side * side; ++p) pixels.push_back(static_cast<std::uint8_t>(rng() % 256));
    }
    fx::writeFile(dir + "/" + stem + "-images.idx",
                  fx::idxBytes({static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(side),
                                static_cast<std::uint32_t>(side)},
                               pixels));
    fx::writeFile(dir + "/" + stem + "-labels.idx", fx::idxBytes({static_cast<std::uint32_t>(n)}, labels));
}

// `noise` is the second source's IDX stem; `rule` its extra spec keys; `tasks` the public tasks.
std::string specText(const std::string& noise, const std::string& rule, const std::string& tasks) {
    return R"({
  "name": "two-sources",
  "public_sources": [
    {"name": "pub", "loader": "idx", "path": "pub-images.idx", "options": {"labels": "pub-labels.idx", "classes": "a,b,c,d"}},
    {"name": "noise", "loader": "idx", "path": ")" +
           noise + R"(-images.idx",
     "options": {"labels": ")" +
           noise + R"(-labels.idx", "classes": "x,y"})" + rule + R"(}
  ],
  "sensitive": {"name": "sens", "loader": "idx", "path": "sens-images.idx",
                "options": {"labels": "sens-labels.idx", "classes": "a,b,c,d"}, "user_level": false},
  "tasks": {"public": )" +
           tasks + R"(,
            "sensitive": [{"name": "ab", "classes": ["a", "b"]}]},
  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3, "composition": "parallel"},
  "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 5},
             "pretrain": {"batch": 32, "lr": 0.1, "steps": 3},
             "finetune": {"batch": 64, "lr": 0.05, "steps": 2, "clip": 1.0}},
  "seeds": [0]
})";
}

const std::string kPubTasks = R"([{"name": "a", "classes": ["a"], "source": "pub"},
              {"name": "b", "classes": ["b"], "source": "pub"}, {"name": "cd", "classes": ["c", "d"], "source": "pub"}])";

}  // namespace

class TestMultiSourceStudy : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    Result<project::ProjectFile> create(const std::string& name, const std::string& spec) {
        const std::string d = dir_.path();
        std::ofstream(d + "/" + name + ".json") << spec;
        return project::createProjectFromSpecFile(d + "/" + name + ".json", d + "/" + name + ".dpmix",
                                                  testing::dataLayerSummarizer());
    }
    bool exists(const std::string& name) const { return fs::exists(dir_.path() + "/" + name + ".dpmix"); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path();
        testing::writeStudyImages(d, "pub", 200, 1);
        testing::writeStudyImages(d, "sens", 600, 2);
        writeNoiseImages(d, "noise8", 100, testing::kTinySide, 3);
        writeNoiseImages(d, "noise16", 100, 16, 4);
    }

    void componentsAreSourceTaskPairs() {
        auto p = create("load", specText("noise8", "", kPubTasks));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        auto study = loadImageStudy(p->sources().value(), p->spec(), 0);
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        // The noise source has no tasks: its own classes are its components.
        QCOMPARE(study->componentNames,
                 (std::vector<std::string>{"pub / a", "pub / b", "pub / cd", "noise / x", "noise / y"}));
        QCOMPARE(study->publicSourceNames, (std::vector<std::string>{"pub", "noise"}));
        QCOMPARE(study->componentSource, (std::vector<std::size_t>{0, 0, 0, 1, 1}));
        QCOMPARE(study->publicSourceImages, (std::vector<std::size_t>{200, 100}));
        QCOMPARE(study->publicImages.size(), std::size_t(300));
        QVERIFY(study->multiSource());
        // Image 0 (pub, class a) is defined on pub's components only; image 200 (noise) on noise's.
        QCOMPARE(std::vector<unsigned char>(study->componentDefined.begin(), study->componentDefined.begin() + 5),
                 (std::vector<unsigned char>{1, 1, 1, 0, 0}));
        QCOMPARE(std::vector<unsigned char>(study->componentDefined.begin() + 200 * 5,
                                            study->componentDefined.begin() + 201 * 5),
                 (std::vector<unsigned char>{0, 0, 0, 1, 1}));
        QCOMPARE(p->spec().mixtureComponents(project::publicLabelCounts(p->sources().value())), std::size_t(5));
    }

    void aSourceWithoutLabelsIsOneComponent() {
        std::string spec = specText("noise8", "", kPubTasks);
        const std::string anchor = "\n  ],\n  \"sensitive\"";
        spec.insert(spec.find(anchor), R"(,
    {"name": "plain", "loader": "idx", "path": "noise8-images.idx"})");
        auto p = create("unlabelled", spec);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        auto study = loadImageStudy(p->sources().value(), p->spec(), 0);
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        QCOMPARE(study->componentNames.size(), std::size_t(6));
        QCOMPARE(study->componentNames.back(), std::string("plain / all"));
        // "All of source plain": every one of its images is positive, and only there defined.
        const std::size_t k = 6, first = 300;
        for (std::size_t j = first; j < first + 100; ++j) {
            QCOMPARE(study->publicImages.labels[j * k + 5], 1.0f);
            QCOMPARE(study->componentDefined[j * k + 5], static_cast<unsigned char>(1));
        }
        QCOMPARE(study->componentDefined[5], static_cast<unsigned char>(0));
    }

    void everyMethodRunsOverTheUnion() {
        auto created = create("run", specText("noise8", "", kPubTasks));
        QVERIFY(created.ok());
        project::ProjectFile project = std::move(created).value();
        auto* p = &project;
        StudyRunOptions o;
        o.stages = {"proxies", "mixture", "downstream"};
        o.methods = {"dp-mixmin", "uniform", "random-init", "non-private-mixmin"};
        o.proxy = testing::quickProxy();
        o.reproducible = true;
        auto report = runStudy(*p, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->componentNames.size(), std::size_t(5));
        QCOMPARE(report->downstream.size(), std::size_t(4));  // one run per method, one task, one seed
        for (const auto& r : p->runs().value()) {
            QVERIFY2(r.status == project::RunStatus::Done, (r.method + ": " + r.message).c_str());
            for (const auto& l : p->lambdas(r.id).value()) {
                QCOMPARE(l.names.size(), std::size_t(5));
                QCOMPARE(l.names.back(), std::string("noise / y"));
                double sum = 0.0;
                for (double v : l.values) sum += v;
                QVERIFY(std::abs(sum - 1.0) < 1e-9);
            }
        }
        for (const auto& d : report->downstream) QVERIFY2(!p->models(d.runId).value().empty(), d.method.c_str());
    }

    void anotherShapeNeedsItsRule() {
        auto refused = create("unsized", specText("noise16", "", kPubTasks));
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("public_sources[1] (\"noise\"): its images are 1x16x16 but the "
                                              "sensitive images are 1x8x8; set \"resize\": \"bilinear\"") !=
                     std::string::npos,
                 refused.error().message.c_str());
        QVERIFY(!exists("unsized"));  // nothing written
        auto resized = create("resized", specText("noise16", R"(, "resize": "bilinear")", kPubTasks));
        QVERIFY2(resized.ok(), resized.ok() ? "" : resized.error().message.c_str());
        auto study = loadImageStudy(resized->sources().value(), resized->spec(), 0);
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        QCOMPARE(study->publicImages.height, testing::kTinySide);
        QCOMPARE(study->publicImages.size(), std::size_t(300));
        // Colour needs its own rule.
        auto grey = create("colour", specText("noise8", R"(, "colour": "luminance")", kPubTasks));
        QVERIFY(grey.ok());  // same channels: the rule is not needed and changes nothing
    }

    void aTaskOverAnotherSourcesClassIsRefused() {
        const std::string tasks = R"([{"name": "a", "classes": ["a"], "source": "pub"},
              {"name": "wrong", "classes": ["x"], "source": "pub"}])";
        auto refused = create("wrong-class", specText("noise8", "", tasks));
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("tasks.public[1].classes[0]: \"x\" is not a label of public source "
                                              "\"pub\" (labels: \"a\", \"b\", \"c\", \"d\")") != std::string::npos,
                 refused.error().message.c_str());
        QVERIFY(!exists("wrong-class"));
        const std::string unnamed = R"([{"name": "a", "classes": ["a"]}])";
        auto ambiguous = create("unnamed", specText("noise8", "", unnamed));
        QVERIFY(!ambiguous.ok());
        QVERIFY2(ambiguous.error().message.find("tasks.public[0].source: missing") != std::string::npos,
                 ambiguous.error().message.c_str());
        QVERIFY(!exists("unnamed"));
    }

    void oneSourceStudiesAreAsBefore() {
        const std::string d = dir_.path();
        std::string spec = specText("noise8", "", kPubTasks);
        // Drop the second source and the tasks' source names: a one-source spec as written before.
        const auto at = spec.find(",\n    {\"name\": \"noise\"");
        spec.erase(at, spec.find("\n  ],", at) - at);
        for (auto s = spec.find(R"(, "source": "pub")"); s != std::string::npos; s = spec.find(R"(, "source": "pub")"))
            spec.erase(s, std::string(R"(, "source": "pub")").size());
        auto p = create("one", spec);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        auto study = loadImageStudy(p->sources().value(), p->spec(), 0);
        QVERIFY(study.ok());
        QCOMPARE(study->componentNames, (std::vector<std::string>{"a", "b", "cd"}));
        QVERIFY(!study->multiSource());
        QVERIFY(study->componentDefined.empty());
        QVERIFY(project::projectSpecToJson(p->spec()).find("\"source\"") == std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestMultiSourceStudy)
#include "tst_multi_source_study.moc"
