// The source dialog's "DICOM folder" (docs/WORKBENCH.md, "A DICOM folder"): a folder of DICOM files written by GDCM at
// run time previews as a grid of windowed images with the counts of patients, studies and images, the tags found and
// each unreadable file's reason, before labels are chosen (OK stays disabled and says why); once labelled it registers
// with the patients as its users. With DPMIX_SCREENSHOT_DIR set, the dialog is saved there as dicom-source-dialog.png
// (docs/screenshots/ holds the committed one).
#include "app/workbench/study/engine_source_preview.h"
#include "app/workbench/study/source_dialog.h"
#include "app/workbench/study/source_loader_catalog.h"
#include "app/workbench/study/source_preview_widget.h"
#include "tests/engine/data/dicom_fixtures.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

using namespace dpmix::workbench;
namespace fx = dpmix::data::fixtures;

namespace {

constexpr int kLoadTimeoutMs = 60000;

// A chest-like image (chestLikeImage) of patient p with its identifiers.
fx::DicomFixture chestImage(int p, int i, bool finding) {
    fx::DicomFixture f = fx::chestLikeImage(p, i, finding);
    f.patientId = "PAT-" + std::to_string(p);
    f.patientName = "Doe^Patient" + std::to_string(p);
    f.studyUid = "1.2.826.0.1.3680043.2.1125.47." + std::to_string(p);
    f.seriesUid = f.studyUid + ".1";
    f.sopUid = f.seriesUid + "." + std::to_string(i + 1);
    return f;
}

}  // namespace

class TstDicomSourceDialog : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    EngineSourcePreviewer previewer_;

    QString path(const QString& name) const { return dir_.filePath(name); }

    dpmix::data::SourceSpec spec(std::map<std::string, std::string> options) const {
        options.emplace("pseudonym_key", path("key.txt").toStdString());
        return {"clinic", "dicom", path("study").toStdString(), std::move(options)};
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QFile key(path("key.txt"));
        QVERIFY(key.open(QIODevice::WriteOnly));
        key.write("0123456789abcdef0123456789abcdef\n");
        key.close();
        key.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        // 8 patients × 2 images (patients 0-3 have two studies), a truncated file and a README.
        QFile csv(path("labels.csv"));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("SOPInstanceUID,Nodule\n");
        for (int p = 0; p < 8; ++p)
            for (int i = 0; i < 2; ++i) {
                auto f = chestImage(p, i, p % 2 == 1);
                if (p < 4 && i == 1) f.studyUid += ".2";
                fx::writeDicom(path("study/case%1/%2.dcm").arg(p + 1).arg(i + 1).toStdString(), f);
                csv.write(QByteArray::fromStdString(f.sopUid) + (p % 2 == 1 ? ",1\n" : ",0\n"));
            }
        csv.close();
        QFile whole(path("study/case1/1.dcm"));
        QVERIFY(whole.open(QIODevice::ReadOnly));
        QFile cut(path("study/case9/1.dcm"));
        QVERIFY(QDir().mkpath(path("study/case9")) && cut.open(QIODevice::WriteOnly));
        cut.write(whole.readAll().left(300));
        cut.close();
        QFile readme(path("study/README.txt"));
        QVERIFY(readme.open(QIODevice::WriteOnly));
        readme.write("not DICOM");
    }

    void theCatalogOffersADicomFolderAndProposesUserLevel() {
        const LoaderInfo* dicom = findLoader("dicom");
        QVERIFY(dicom != nullptr);
        QVERIFY(dicom->title.startsWith("DICOM folder"));
        QVERIFY(dicom->images);
        SourceDialog d(SourceRole::Sensitive, &previewer_, {});
        QComboBox* loader = d.loaderBox();
        QVERIFY(loader != nullptr);
        loader->setCurrentIndex(loader->findData("dicom"));
        auto* userLevel = d.findChild<QCheckBox*>("userLevel");
        QVERIFY(userLevel != nullptr && userLevel->isChecked());
    }

    void aFolderPreviewsBeforeItsLabelsAreChosen() {
        SourceDialog d(SourceRole::Sensitive, &previewer_, {});
        d.setSource(spec({}));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        SourcePreviewWidget* p = d.previewWidget();
        const QString overview = p->dicomLabel()->text();
        QVERIFY2(overview.contains("8 patients") && overview.contains("12 studies") && overview.contains("16 images") &&
                     overview.contains("17 DICOM files") && overview.contains("PatientID (0010,0020)") &&
                     overview.contains("1 other files skipped"),
                 qPrintable(overview));
        QVERIFY2(overview.contains(path("study/case9/1.dcm")), qPrintable(overview));
        QVERIFY2(!overview.contains("PAT-") && !overview.contains("Doe") && !overview.contains("1.2.826"),
                 qPrintable(overview));
        QVERIFY2(p->statusLabel()->text().startsWith("Not registrable yet"), qPrintable(p->statusLabel()->text()));
        QVERIFY(!d.okButton()->isEnabled());
        QCOMPARE(p->thumbnails()->count(), 16);
        // The windowed image: the body (stored ≥ 3000 of a 0-4095 window) is bright, the corner dark.
        const QImage first = p->thumbnails()->item(0)->icon().pixmap(QSize(56, 56)).toImage();
        QVERIFY(qGray(first.pixel(28, 50)) > 180);
        QVERIFY(qGray(first.pixel(0, 0)) < 30);
    }

    void labelledItRegistersWithThePatientsAsUsers() {
        SourceDialog d(SourceRole::Sensitive, &previewer_, {});
        d.setSource(spec({{"labels_csv", "labels.csv"}, {"labels", "Nodule"}, {"bad_files", "skip"}}), true);
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        SourcePreviewWidget* p = d.previewWidget();
        QVERIFY2(p->statusLabel()->text().contains("16 examples") && p->statusLabel()->text().contains("8 users"),
                 qPrintable(p->statusLabel()->text()));
        QVERIFY(d.okButton()->isEnabled());
        QCOMPARE(d.registration().facts.users, 8LL);
        QVERIFY(d.registration().userLevel);  // what the study needs of a DICOM folder: the patient as the unit
        QCOMPARE(p->thumbnails()->item(1)->text(), QString("—"));  // patient 0's images: no nodule
        QCOMPARE(p->thumbnails()->item(2)->text(), QString("Nodule"));
        if (const QString out = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR"); !out.isEmpty()) {
            d.resize(1100, 760);
            QDir().mkpath(out);
            QVERIFY(d.grab().save(out + "/dicom-source-dialog.png"));
        }
    }
};

QTEST_MAIN(TstDicomSourceDialog)
#include "tst_dicom_source_dialog.moc"
