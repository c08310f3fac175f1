// A clinic's DICOM study through the dpmix binary (docs/DATA.md's acceptance run, at a small size): a
// generated study of 30 patients × 3 images with a label CSV keyed by SOPInstanceUID as the
// sensitive source at user level, a generated public DICOM set labelled by BodyPartExamined;
// `dpmix new`, `run --stages proxies,mixture`, `inspect`, `budget` and `export-release`: every DP
// ledger entry protects a user, the budget counts patients, and no patient id, name, date or UID
// appears in the project, the release or anything printed. Bad studies change nothing on disk.
#include "cli_runner.h"
#include "tests/engine/data/dicom_fixtures.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <string>
#include <vector>

namespace fx = dpmix::data::fixtures;

namespace {

const char* kSpec = R"({
  "name": "cli-dicom",
  "public_sources": [{"name": "atlas", "loader": "dicom", "path": "public",
                      "options": {"label_tag": "BodyPartExamined", "classes": "CHEST,HAND", "user_tag": "none",
                                  "size": "16"}}],
  "sensitive": {"name": "scans", "loader": "dicom", "path": "SCANS",
                "options": {"labels_csv": "labels.csv", "labels": "Finding", "size": "16"}, "user_level": true},
  "tasks": {"public": [{"name": "chest", "classes": ["CHEST"]}, {"name": "hand", "classes": ["HAND"]}]},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.5},
  "stages": {"mixture": {"batch": 4, "steps": 5}},
  "seeds": [0]
})";

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestCliDicom : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::vector<std::string> identifiers_;
    QStringList printed_;  // everything the commands printed

    QString path(const QString& name) const { return dir_.filePath(name); }

    void writeSpec(const QString& name, const QString& scans) {
        QFile f(path(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(kSpec).replace("SCANS", scans.toUtf8()));
    }

    CliResult dpmix(const QStringList& args) {
        const CliResult r = runDpmix(args, dir_.path());
        printed_ << r.out << r.err;
        return r;
    }

    // The identifiers found in `bytes`, at most 5 of them.
    QStringList identifiersIn(const QByteArray& bytes) const {
        QStringList found;
        for (const auto& id : identifiers_)
            if (bytes.contains(QByteArray::fromStdString(id)) && found.size() < 5) found << QString::fromStdString(id);
        return found;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        qputenv("DPMIX_KEY_DIR", path("keys").toUtf8());
        qputenv("DPMIX_BUDGET_STORE", path("budget.sqlite").toUtf8());
        identifiers_ = fx::writeDicomStudy(path("scans").toStdString(), path("labels.csv").toStdString(), 30, 3);
        fx::writePublicDicomSet(path("public").toStdString(), 40);
        writeSpec("study.json", "scans");
    }

    void aDicomStudyRunsAtUserLevelAndNothingIdentifyingLeaves() {
        const auto made = dpmix({"new", path("study.json"), "-o", path("study.dpmix")});
        QVERIFY2(made.exitCode == 0, qPrintable(made.err));
        QVERIFY2(made.out.contains("90 examples, 30 users"), qPrintable(made.out));
        const auto run = dpmix({"run", path("study.dpmix"), "--stages", "proxies,mixture", "--proxy-epochs", "1"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains("user-level DP"), qPrintable(run.err));

        const auto shown = dpmix({"inspect", path("study.dpmix"), "--json"});
        QVERIFY2(shown.exitCode == 0, qPrintable(shown.err));
        int dpEntries = 0;
        for (const auto& run : shown.json()["runs"].toArray())
            for (const auto& ledger : run.toObject()["ledgers"].toArray())
                for (const auto& entry : ledger.toObject()["ledger"].toObject()["entries"].toArray()) {
                    const QJsonObject e = entry.toObject();
                    if (e["mechanism"].toString() == "non-private") continue;  // λ*, random search: ε = ∞
                    ++dpEntries;
                    QCOMPARE(e["unit"].toString(), QString("user"));
                }
        QVERIFY(dpEntries >= 1);
        const auto budget = dpmix({"budget", path("study.dpmix"), "--json"});
        QVERIFY2(budget.exitCode == 0, qPrintable(budget.err));
        QCOMPARE(budget.json()["unit"].toString(), QString("users"));
        QVERIFY(dpmix({"inspect", path("study.dpmix")}).exitCode == 0);
        QVERIFY(dpmix({"budget", path("study.dpmix")}).exitCode == 0);

        const auto exported =
            dpmix({"export-release", path("study.dpmix"), "--runs", "2", "-o", path("release.dpmix")});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        QVERIFY(dpmix({"inspect", path("release.dpmix"), "--json"}).exitCode == 0);

        QVERIFY(!identifiersIn(fileBytes(path("scans/case1/1.dcm"))).isEmpty());  // the check finds them where they are
        for (const char* file : {"study.dpmix", "release.dpmix", "budget.sqlite"})
            QVERIFY2(identifiersIn(fileBytes(path(file))).isEmpty(),
                     qPrintable(QString(file) + ": " + identifiersIn(fileBytes(path(file))).join(", ")));
        const QByteArray allPrinted = printed_.join("\n").toUtf8();
        QVERIFY2(identifiersIn(allPrinted).isEmpty(), qPrintable(identifiersIn(allPrinted).join(", ")));
    }

    void badStudiesNameTheFileAndWriteNothing() {
        // A copy of two patients with a corrupt file, and one with a file that has no PatientID.
        QVERIFY(QDir().mkpath(path("bad/scans")));
        fx::DicomFixture f;
        f.patientId = "PID47-0";
        f.sopUid = "2.25.47.1.1.1";
        f.stored.assign(16, 100);
        fx::writeDicom(path("bad/scans/a.dcm").toStdString(), f);
        QFile corrupt(path("bad/scans/b.dcm"));
        QVERIFY(corrupt.open(QIODevice::WriteOnly));
        corrupt.write(fileBytes(path("bad/scans/a.dcm")).left(200));
        corrupt.close();
        QVERIFY(QFile::copy(path("labels.csv"), path("bad/labels.csv")));
        writeSpec("bad-study.json", "bad/scans");
        const auto refused = dpmix({"new", path("bad-study.json"), "-o", path("bad.dpmix")});
        QVERIFY(refused.exitCode > 0);
        QVERIFY2(refused.err.contains("DICOM file '" + path("bad/scans/b.dcm") + "'"), qPrintable(refused.err));
        QVERIFY(!QFile::exists(path("bad.dpmix")));

        QVERIFY(QFile::remove(path("bad/scans/b.dcm")));
        f.withPatientId = false;
        f.sopUid = "2.25.47.1.1.2";
        fx::writeDicom(path("bad/scans/c.dcm").toStdString(), f);
        const auto noPatient = dpmix({"new", path("bad-study.json"), "-o", path("bad.dpmix")});
        QVERIFY(noPatient.exitCode > 0);
        QVERIFY2(noPatient.err.contains("have no PatientID") && noPatient.err.contains(path("bad/scans/c.dcm")),
                 qPrintable(noPatient.err));
        QVERIFY(!QFile::exists(path("bad.dpmix")));
        // A sensitive DICOM source declares its label set.
        QFile undeclared(path("undeclared.json"));
        QVERIFY(undeclared.open(QIODevice::WriteOnly));
        undeclared.write(QByteArray(kSpec).replace("SCANS", "scans").replace(R"("labels": "Finding", )", ""));
        undeclared.close();
        const auto refusedLabels = dpmix({"new", path("undeclared.json"), "-o", path("bad.dpmix")});
        QVERIFY(refusedLabels.exitCode > 0);
        QVERIFY2(refusedLabels.err.contains("sensitive.options.labels: missing: the sensitive dicom source 'scans' "
                                            "must declare its label set (the comma-separated columns of its label CSV"),
                 qPrintable(refusedLabels.err));
        QVERIFY(!QFile::exists(path("bad.dpmix")));
        QVERIFY2(identifiersIn(printed_.join("\n").toUtf8()).isEmpty(), "an error quoted an identifier");
    }
};

QTEST_GUILESS_MAIN(TestCliDicom)
#include "tst_cli_dicom.moc"
