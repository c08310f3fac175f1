// Real data (label data; skipped without scripts/fetch-data.sh output): registering the
// Fashion-MNIST t10k images as the drop guess fills them in shows 10,000 examples, the ten class
// names and 32 thumbnails. With DPMIX_SCREENSHOT_DIR set, the dialog is saved there as
// source-dialog-fashion-mnist.png (docs/screenshots/ holds the committed one).
#include "app/workbench/drop_source_guess.h"
#include "app/workbench/engine_source_preview.h"
#include "app/workbench/source_dialog.h"
#include "app/workbench/source_preview_widget.h"

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QtTest>

using namespace dpmix::workbench;

class TstSourceDialogData : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fashionMnistT10k() {
        const QString dataDir = qEnvironmentVariable("DPMIX_DATA_DIR", QStringLiteral(DPMIX_SOURCE_DIR "/data"));
        const QString images = dataDir + "/fashion-mnist/t10k-images-idx3-ubyte.gz";
        if (!QFileInfo::exists(images)) QSKIP("Fashion-MNIST not fetched (scripts/fetch-data.sh)");
        const SourceGuess guess = guessSource(images);
        QCOMPARE(guess.source.loader, std::string("idx"));
        QCOMPARE(guess.source.options.at("classes"), std::string("fashion-mnist"));

        EngineSourcePreviewer previewer;
        SourceDialog d(SourceRole::Public, &previewer, {});
        d.setNote("Dropped t10k-images-idx3-ubyte.gz: " + guess.reason + ".");
        d.setSource(guess.source);
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), 60000);
        SourcePreviewWidget* p = d.previewWidget();
        QVERIFY2(p->statusLabel()->text().startsWith(QString::fromUtf8("10\u2009000 examples")),
                 qPrintable(p->statusLabel()->text()));
        // Zalando's class names, in label order.
        QVERIFY2(p->labelsLabel()->text().contains("10 labels: T-shirt/top, Trouser, Pullover, Dress, Coat, Sandal, "
                                                   "Shirt, Sneaker, Bag, Ankle boot"),
                 qPrintable(p->labelsLabel()->text()));
        QCOMPARE(p->thumbnails()->count(), kPreviewExamples);
        // The first t10k image is an ankle boot, the second a pullover (Zalando's README figure order).
        QCOMPARE(p->thumbnails()->item(0)->text(), QString("Ankle boot"));
        QCOMPARE(p->thumbnails()->item(1)->text(), QString("Pullover"));
        QVERIFY(d.okButton()->isEnabled());
        QCOMPARE(d.registration().facts.examples, 10000LL);

        if (const QString out = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR"); !out.isEmpty()) {
            QDir().mkpath(out);
            QVERIFY(d.grab().save(out + "/source-dialog-fashion-mnist.png"));
        }
    }
};

QTEST_MAIN(TstSourceDialogData)
#include "tst_source_dialog_data.moc"
