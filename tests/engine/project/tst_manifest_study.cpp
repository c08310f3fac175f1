// A study spec from a CSV manifest (engine/project/manifest_study.h): the columns found by their
// names (image paths, patients, findings; age, sex and view set aside) and never by their values,
// the public data, stages and seeds taken from the template with absolute paths and images fitted
// to the clinic's, the template's budget not taken, δ below one in ten times the rows, and each
// refusal naming the flag, the column and the columns there are.
#include "engine/project/manifest_study.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace dpmix;
using namespace dpmix::project;
using dpmix::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

// The template: one public IDX source resolved to an absolute path, two public tasks, a budget
// and budget store of its own sensitive data, and stages and seeds of its own.
ProjectSpec fashionTemplate() {
    ProjectSpec t;
    t.name = "fashion-mnist";
    SpecSource pub;
    pub.written = {"fashion", "idx", "fashion-mnist/train.gz", {{"labels", "labels.gz"}}};
    pub.resolved = {"fashion", "idx", "/data/fashion-mnist/train.gz", {{"labels", "/data/fashion-mnist/labels.gz"}}};
    t.publicSources = {pub};
    t.publicTasks = {{"footwear", {"Sandal", "Sneaker"}, ""}, {"tops", {"Shirt"}, ""}};
    t.sensitiveTasks = {{"warm", {"Coat"}, ""}};
    t.privacy.epsilons = {2.0};
    t.privacy.delta = 1e-5;
    t.privacy.rho = 0.25;
    t.privacy.budget = 6.0;
    t.privacy.budgetStore = "fashion-budget.sqlite";
    t.privacy.reproducible = true;
    t.mixture.steps = 77;
    t.pretrain.steps = 333;
    t.finetune.steps = 444;
    t.psg = PsgSection{};
    t.seeds = {4, 5};
    return t;
}

void writeText(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

class TestManifestStudy : public QObject {
    Q_OBJECT
    TempDir dir_;

    fs::path manifest(const std::string& text, const std::string& name = "xrays/labels.csv") {
        const fs::path file = fs::path(dir_.path()) / name;
        writeText(file, text);
        return file;
    }

private Q_SLOTS:
    void theColumnsAreFoundByTheirNames() {
        // "Edema" holds values no label would (text, 7): the header decides, not the values.
        const fs::path m = manifest(
            "Path,Patient ID,Sex,Age,Effusion,Edema\n"
            "a.png,p1,F,40,1,x\nb.png,p1,F,40,0,7\nc.png,p2,M,61,,1\n");
        auto study = studyFromManifest(m, fashionTemplate(), {}, dir_.path());
        QVERIFY2(study, study ? "" : study.error().message.c_str());
        const SpecSource& s = study->spec.sensitive;
        QCOMPARE(s.written.loader, std::string("csv-images"));
        QCOMPARE(s.written.path, std::string("xrays/labels.csv"));  // below the spec's folder: relative
        QCOMPARE(s.written.options.at("path_column"), std::string("Path"));
        QCOMPARE(s.written.options.at("user_column"), std::string("Patient ID"));
        QCOMPARE(s.written.options.at("labels"), std::string("Effusion,Edema"));
        QCOMPARE(s.written.options.at("ignore_columns"), std::string("Sex,Age"));
        QVERIFY(s.userLevel);
        QVERIFY(!s.written.options.count("size"));
        QCOMPARE(study->spec.sensitiveTasks.size(), std::size_t(2));
        QCOMPARE(study->spec.sensitiveTasks[1].name, std::string("Edema"));
        QVERIFY(study->spec.sensitiveTasks[1].classes == std::vector<std::string>{"Edema"});
        QCOMPARE(study->spec.name, std::string("labels"));
        std::string notes;
        for (const auto& n : study->notes) notes += n + "\n";
        QVERIFY2(notes.find("patients: column \"Patient ID\"") != std::string::npos, notes.c_str());
        QVERIFY2(notes.find("the values are not read") != std::string::npos, notes.c_str());
        QVERIFY2(notes.find("not labels (they describe the image or patient): \"Sex\", \"Age\"") != std::string::npos,
                 notes.c_str());
    }

    void thePublicPartIsTheTemplatesAndItsBudgetIsNot() {
        const fs::path m = manifest("Image,Effusion\na.png,1\nb.png,0\n", "elsewhere/m.csv");
        ManifestStudyChoices c;
        c.name = "clinic study";
        c.epsilon = 0.5;
        c.size = "28";
        const fs::path specDir = fs::path(dir_.path()) / "specs";
        auto study = studyFromManifest(m, fashionTemplate(), c, specDir);
        QVERIFY2(study, study ? "" : study.error().message.c_str());
        const ProjectSpec& s = study->spec;
        QCOMPARE(s.name, std::string("clinic study"));
        // Outside the spec's folder: absolute.
        QVERIFY2(fs::path(s.sensitive.written.path).is_absolute(), s.sensitive.written.path.c_str());
        QCOMPARE(s.sensitive.written.options.at("path_column"), std::string("Image"));
        QCOMPARE(s.sensitive.written.options.at("size"), std::string("28"));
        QVERIFY(!s.sensitive.userLevel);  // no patient column by name: one image is the unit
        QVERIFY(!s.sensitive.written.options.count("user_column"));
        QCOMPARE(s.publicSources.size(), std::size_t(1));
        QCOMPARE(s.publicSources[0].written.path, std::string("/data/fashion-mnist/train.gz"));
        QCOMPARE(s.publicSources[0].written.options.at("labels"), std::string("/data/fashion-mnist/labels.gz"));
        QCOMPARE(s.publicSources[0].resize, std::string("bilinear"));
        QCOMPARE(s.publicTasks.size(), std::size_t(2));
        QCOMPARE(s.sensitiveTasks.size(), std::size_t(1));  // the template's "warm" is its own data's
        QVERIFY(s.privacy.epsilons == std::vector<double>{0.5});
        QCOMPARE(s.privacy.rho, 0.25);
        QVERIFY(!s.privacy.budget);
        QVERIFY(s.privacy.budgetStore.empty());
        QVERIFY(!s.privacy.reproducible);
        QVERIFY(!s.psg);
        QCOMPARE(s.mixture.steps, 77LL);
        QCOMPARE(s.pretrain.steps, 333LL);
        QCOMPARE(s.finetune.steps, 444LL);
        QVERIFY(s.seeds == (std::vector<long long>{4, 5}));
        // 2 rows: δ the largest power of ten below 1 / 20 = 0.05, i.e. 0.01.
        QVERIFY2(std::abs(s.privacy.delta - 0.01) < 1e-15, std::to_string(s.privacy.delta).c_str());
    }

    void deltaIsBelowOneInTenTimesTheRows() {
        std::string csv = "Path,Effusion\n";
        for (int i = 0; i < 1234; ++i) csv.append("i").append(std::to_string(i)).append(".png,1\n");
        auto study = studyFromManifest(manifest(csv, "big.csv"), fashionTemplate(), {}, dir_.path());
        QVERIFY(study);
        // 1 / (10 · 1234) = 8.1e-5: 1e-5.
        QVERIFY2(std::abs(study->spec.privacy.delta - 1e-5) < 1e-20, std::to_string(study->spec.privacy.delta).c_str());
        QVERIFY(study->spec.privacy.delta < 1.0 / (10.0 * 1234));
        ManifestStudyChoices c;
        c.delta = 1e-7;
        study = studyFromManifest(manifest(csv, "big.csv"), fashionTemplate(), c, dir_.path());
        QCOMPARE(study->spec.privacy.delta, 1e-7);
    }

    void theUsersAnswersAreCheckedAgainstTheHeader() {
        const fs::path m = manifest("Path,Patient,Effusion,Edema\na.png,p1,1,0\n", "answers.csv");
        ManifestStudyChoices c;
        c.labels = {"Effusion", "Cardiomegaly"};
        auto r = studyFromManifest(m, fashionTemplate(), c, dir_.path());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("--labels = \"Cardiomegaly\" is not a column of") != std::string::npos,
                 r.error().message.c_str());
        QVERIFY2(r.error().message.find("expected one of \"Path\", \"Patient\", \"Effusion\", \"Edema\"") !=
                     std::string::npos,
                 r.error().message.c_str());
        c = {};
        c.labels = {"Patient"};
        r = studyFromManifest(m, fashionTemplate(), c, dir_.path());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("\"Patient\" is the patient column, not a label") != std::string::npos,
                 r.error().message.c_str());
        c = {};
        c.userColumn = "none";
        c.labels = {"Edema"};
        r = studyFromManifest(m, fashionTemplate(), c, dir_.path());
        QVERIFY(r);
        QVERIFY(!r->spec.sensitive.userLevel);
        QCOMPARE(r->spec.sensitive.written.options.at("labels"), std::string("Edema"));
        c = {};
        c.pathColumn = "File";
        r = studyFromManifest(m, fashionTemplate(), c, dir_.path());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("--path-column = \"File\" is not a column of") != std::string::npos,
                 r.error().message.c_str());
    }

    void aManifestWithoutPathsOrLabelsIsRefused() {
        auto r =
            studyFromManifest(manifest("Patient,Effusion\np1,1\n", "nopath.csv"), fashionTemplate(), {}, dir_.path());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("--path-column: no column of") != std::string::npos, r.error().message.c_str());
        r = studyFromManifest(manifest("Path,Patient,Sex\na.png,p1,F\n", "nolabels.csv"), fashionTemplate(), {},
                              dir_.path());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("--labels: no column of") != std::string::npos, r.error().message.c_str());
        r = studyFromManifest(manifest("Path,Effusion\n", "norows.csv"), fashionTemplate(), {}, dir_.path());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("no image rows") != std::string::npos, r.error().message.c_str());
        r = studyFromManifest(fs::path(dir_.path()) / "missing.csv", fashionTemplate(), {}, dir_.path());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("cannot read the manifest") != std::string::npos, r.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestManifestStudy)
#include "tst_manifest_study.moc"
