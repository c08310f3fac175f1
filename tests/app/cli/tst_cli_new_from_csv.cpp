// `dpmix new --from-csv` as a clinician runs it: a CSV manifest of the clinic's images (paths, a
// patient column, findings, sex) and the public data of an existing spec become a study spec
// written next to the project and a project with the patient as the unit, in one command that says
// what it decided. Before, a CSV manifest could only become a study by writing JSON by hand.
// Bad answers exit 2 naming the flag and write nothing.
#include "cli_runner.h"
#include "tests/engine/data/data_fixtures.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace fx = dpmix::data::fixtures;

// The public data: 8×8 IDX images over classes a–d, with two public tasks.
const char* kTemplate = R"({
  "name": "public-template",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "pub-images.idx",
                      "options": {"labels": "pub-labels.idx", "classes": "a,b,c,d"}}],
  "sensitive": {"name": "own", "loader": "idx", "path": "pub-images.idx",
                "options": {"labels": "pub-labels.idx", "classes": "a,b,c,d"}},
  "tasks": {"public": [{"name": "ab", "classes": ["a", "b"]}, {"name": "cd", "classes": ["c", "d"]}],
            "sensitive": [{"name": "ac", "classes": ["a", "c"]}]},
  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3, "budget": 5},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 5}},
  "seeds": [0, 1]
})";

}  // namespace

class TestCliNewFromCsv : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString path(const QString& name) const { return dir_.filePath(name); }
    QStringList entries() const { return QDir(dir_.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path().toStdString();
        std::vector<std::uint8_t> pixels, labels;
        for (int i = 0; i < 80; ++i) {
            labels.push_back(static_cast<std::uint8_t>(i % 4));
            for (int p = 0; p < 64; ++p) pixels.push_back(static_cast<std::uint8_t>((p * 7 + i * 13) % 256));
        }
        fx::writeFile(d + "/pub-images.idx", fx::idxBytes({80, 8, 8}, pixels));
        fx::writeFile(d + "/pub-labels.idx", fx::idxBytes({80}, labels));
        fx::writeFile(d + "/template.json", kTemplate);
        // 30 images of 12 patients (16×16, another size than the public data's), two findings.
        std::string csv = "Path,Patient,Sex,Effusion,Edema\n";
        for (int i = 0; i < 30; ++i) {
            std::vector<std::uint8_t> image(16 * 16);
            for (std::size_t p = 0; p < image.size(); ++p) image[p] = static_cast<std::uint8_t>((p * 3 + i * 29) % 256);
            fx::writePng(d + "/clinic/img" + std::to_string(i) + ".png", 16, 16, 1, image);
            csv += "img" + std::to_string(i) + ".png,p" + std::to_string(i % 12) + "," + (i % 2 ? "F" : "M") + "," +
                   (i % 3 == 0 ? "1" : "0") + "," + (i % 5 == 0 ? "1" : "0") + "\n";
        }
        fx::writeFile(d + "/clinic/labels.csv", csv);
    }

    void badAnswersWriteNothing() {
        const QStringList before = entries();
        struct Case {
            QStringList args;
            const char* says;
        };
        const QList<Case> cases{
            {{"--from-csv", path("clinic/labels.csv"), "-o", path("study.dpmix")}, "--public-from: missing"},
            {{"--from-csv", path("clinic/labels.csv"), "--public-from", path("template.json")}, "-o is required"},
            {{"--from-csv", path("clinic/labels.csv"), "--public-from", path("template.json"), "-o",
              path("study.dpmix"), "--labels", "Effusion,Cardiomegaly"},
             "--labels = \"Cardiomegaly\" is not a column of"},
            {{"--from-csv", path("clinic/labels.csv"), "--public-from", path("template.json"), "-o",
              path("study.dpmix"), "--epsilon", "one"},
             "--epsilon = 'one' is not a number"},
            {{"--from-csv", path("clinic/labels.csv"), "--public-from", path("nowhere.json"), "-o",
              path("study.dpmix")},
             "--public-from:"},
            {{path("template.json"), "--from-csv", path("clinic/labels.csv")}, "not both"},
        };
        for (const auto& c : cases) {
            const CliResult r = runDpmix(QStringList{"new"} + c.args);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(c.says), qPrintable(r.err));
            QCOMPARE(entries(), before);
        }
    }

    void aManifestBecomesAStudyWithThePatientAsTheUnit() {
        const CliResult r = runDpmix({"new", "--from-csv", path("clinic/labels.csv"), "--public-from",
                                      path("template.json"), "-o", path("study.dpmix"), "--size", "16"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        // What it decided, in words, then the project as `dpmix new` reports it.
        QVERIFY2(r.out.contains("wrote " + path("study.json")), qPrintable(r.out));
        QVERIFY2(r.out.contains("image paths: column \"Path\""), qPrintable(r.out));
        QVERIFY2(r.out.contains("patients: column \"Patient\""), qPrintable(r.out));
        QVERIFY2(r.out.contains("labels: \"Effusion\", \"Edema\""), qPrintable(r.out));
        QVERIFY2(r.out.contains("not labels (they describe the image or patient): \"Sex\""), qPrintable(r.out));
        QVERIFY2(r.out.contains("created " + path("study.dpmix")), qPrintable(r.out));
        QVERIFY2(r.out.contains("30 examples, 12 users"), qPrintable(r.out));

        const CliResult inspect = runDpmix({"inspect", path("study.dpmix"), "--json"});
        QVERIFY2(inspect.exitCode == 0, qPrintable(inspect.err));
        const QJsonObject spec = inspect.json()["spec"].toObject();
        const QJsonObject sensitive = spec["sensitive"].toObject();
        QCOMPARE(sensitive["loader"].toString(), QString("csv-images"));
        QCOMPARE(sensitive["user_level"].toBool(), true);
        QCOMPARE(sensitive["options"].toObject()["labels"].toString(), QString("Effusion,Edema"));
        QCOMPARE(spec["tasks"].toObject()["sensitive"].toArray().size(), 2);
        QCOMPARE(spec["tasks"].toObject()["public"].toArray().size(), 2);
        QCOMPARE(spec["public_sources"].toArray()[0].toObject()["resize"].toString(), QString("bilinear"));
        QVERIFY(!spec["privacy"].toObject().contains("budget"));  // the template's cap is its own data's
        QCOMPARE(spec["seeds"].toArray().size(), 2);

        // The spec stays beside the project, and a second run without --force refuses to replace it.
        QVERIFY(QFile::exists(path("study.json")));
        const CliResult again = runDpmix({"new", "--from-csv", path("clinic/labels.csv"), "--public-from",
                                          path("template.json"), "-o", path("study.dpmix")});
        QCOMPARE(again.exitCode, 2);
        QVERIFY2(again.err.contains("already exists (--force replaces it)"), qPrintable(again.err));
    }
};

QTEST_GUILESS_MAIN(TestCliNewFromCsv)
#include "tst_cli_new_from_csv.moc"
