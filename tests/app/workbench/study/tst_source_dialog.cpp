// The registration dialog with the data layer behind it, on small generated files: the preview
// shows the count, labels, content hash (computed here independently) and thumbnails; a broken
// file shows the loader's error in place and OK stays disabled; text sources show snippets.
#include "app/workbench/study/engine_source_preview.h"
#include "app/workbench/study/source_dialog.h"
#include "app/workbench/study/source_loader_catalog.h"
#include "app/workbench/study/source_preview_widget.h"
#include "app/workbench/study/task_editor.h"
#include "engine/data/source_loader.h"
#include "tests/app/workbench/source_fixtures.h"

#include <atomic>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSemaphore>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace dpmix::workbench;
using dpmix::workbench::testing::IdxFixture;

namespace {
constexpr int kLoadTimeoutMs = 10000;

dpmix::data::SourceSpec idxSpec(const IdxFixture& f, const char* classes = "cat,dog,bird") {
    dpmix::data::SourceSpec s;
    s.name = "pets";
    s.loader = "idx";
    s.path = f.images.toStdString();
    s.options = {{"labels", QFileInfo(f.labelFile).fileName().toStdString()}, {"classes", classes}};
    return s;
}
// A previewer whose loads wait until the test releases them; each answer names the path it was
// asked for, so the test sees which load a shown preview came from.
bool catalogHasLoader(const char* key) { return dpmix::workbench::findLoader(QString::fromLatin1(key)) != nullptr; }

class GatedPreviewer : public SourcePreviewer {
public:
    mutable QSemaphore gate;
    mutable std::atomic<int> calls{0};
    mutable std::atomic<int> cancelledSeen{0};
    dpmix::Result<SourcePreview> preview(const dpmix::data::SourceSpec& spec,
                                         const dpmix::CancellationToken& cancel) const override {
        ++calls;
        gate.acquire();
        if (cancel.isCancelled()) ++cancelledSeen;
        SourcePreview p;
        p.facts.kind = dpmix::data::SourceKind::Images;
        p.facts.examples = static_cast<long long>(spec.path.size());
        p.facts.labelNames = {spec.path};
        p.facts.contentHash = "hash-of-" + QFileInfo(QString::fromStdString(spec.path)).fileName().toStdString();
        return p;
    }
};
}  // namespace

class TstSourceDialog : public QObject {
    Q_OBJECT

    EngineSourcePreviewer previewer_;

private Q_SLOTS:
    void idxPreviewShowsCountLabelsHashAndThumbnails() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        QVERIFY(!d.okButton()->isEnabled());
        d.setSource(idxSpec(f));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);

        SourcePreviewWidget* p = d.previewWidget();
        QVERIFY2(p->statusLabel()->text().startsWith("5 examples"), qPrintable(p->statusLabel()->text()));
        QVERIFY(p->statusLabel()->text().contains(QString::fromUtf8("1×4×3 images")));
        QVERIFY2(p->labelsLabel()->text().contains("cat, dog, bird"), qPrintable(p->labelsLabel()->text()));
        QCOMPARE(p->hashLabel()->text(), "Content hash: " + f.hash());

        // One thumbnail per example, captioned with its class; the pixels are the file's bytes.
        QListWidget* thumbs = p->thumbnails();
        QCOMPARE(thumbs->count(), IdxFixture::n);
        const QStringList expected = {"bird", "cat", "dog", "bird", "cat"};
        for (int i = 0; i < IdxFixture::n; ++i) QCOMPARE(thumbs->item(i)->text(), expected[i]);
        const QImage first = thumbs->item(0)->icon().pixmap(QSize(56, 56)).toImage();
        // Nearest-neighbour 4×3 → 56×42: the top-left block is pixel 0, the bottom-right pixel 11.
        QCOMPARE(qGray(first.pixel(0, 0)), static_cast<int>(static_cast<uchar>(f.pixels[0])));
        QCOMPARE(qGray(first.pixel(first.width() - 1, first.height() - 1)),
                 static_cast<int>(static_cast<uchar>(f.pixels[11])));

        QVERIFY(d.okButton()->isEnabled());
        const SourceRegistration r = d.registration();
        QCOMPARE(r.facts.examples, 5LL);
        QCOMPARE(QString::fromStdString(r.facts.contentHash), f.hash());
        QCOMPARE(r.source.loader, std::string("idx"));
        QVERIFY(QFileInfo(QString::fromStdString(r.source.path)).isAbsolute());
        // The task editor offers the source's classes.
        QCOMPARE(d.taskEditor()->classList()->count(), 3);
        QCOMPARE(d.taskEditor()->classList()->item(2)->text(), QString("bird"));
    }

    // The dialog offers the acquisition shift and the heterogeneous pool's loaders; a shifted public
    // source previews the shifted pixels and registers the option.
    void anAcquisitionShiftPreviewsAndRegisters() {
        QVERIFY(catalogHasLoader("glyphs") && catalogHasLoader("icon-theme"));
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        auto spec = idxSpec(f);
        spec.options["shift"] = "invert";
        d.setSource(spec);
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        const QImage first = d.previewWidget()->thumbnails()->item(0)->icon().pixmap(QSize(56, 56)).toImage();
        QCOMPARE(qGray(first.pixel(0, 0)), 255 - static_cast<int>(static_cast<uchar>(f.pixels[0])));
        QVERIFY(d.okButton()->isEnabled());
        QCOMPARE(d.registration().source.options.at("shift"), std::string("invert"));
        QVERIFY(d.registration().facts.contentHash != f.hash().toStdString());
    }

    void previewFactsAreWhatTheProjectRecords() {
        // The dialog's facts come from its own load; they must equal data::summarizeSource's,
        // which ProjectFile::create stores.
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        auto preview = previewer_.preview(idxSpec(f), {});
        QVERIFY(preview.ok());
        auto summary = dpmix::data::summarizeSource(idxSpec(f));
        QVERIFY(summary.ok());
        QCOMPARE(preview->facts.contentHash, summary->contentHash);
        QCOMPARE(preview->facts.examples, summary->examples);
        QCOMPARE(preview->facts.labelNames, summary->labelNames);
        QCOMPARE(preview->facts.users, summary->users);
        QVERIFY(preview->facts.kind == summary->kind);
    }

    void truncatedFileShowsErrorAndOkStaysDisabled() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        QVERIFY(testing::writeIdxImages(f.images, 5, 4, 3, f.pixels.left(20)));  // header says 60 bytes
        SourceDialog d(SourceRole::Public, &previewer_, {});
        d.setSource(idxSpec(f));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        const QString status = d.previewWidget()->statusLabel()->text();
        QVERIFY2(status.contains(QFileInfo(f.images).fileName()), qPrintable(status));
        QVERIFY(!d.okButton()->isEnabled());
        QCOMPARE(d.previewWidget()->thumbnails()->count(), 0);
        QVERIFY(!d.canAccept());
    }

    void tooFewClassNamesShowsTheOptionError() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        d.setSource(idxSpec(f, "cat,dog"));  // labels go up to 2
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        const QString status = d.previewWidget()->statusLabel()->text();
        QVERIFY2(status.contains("classes") && status.contains("2"), qPrintable(status));
        QVERIFY(!d.okButton()->isEnabled());
        // Fixing the option in the form reloads and enables OK.
        d.optionField("classes")->setText("cat,dog,bird");
        d.refreshPreview();
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        QVERIFY(d.okButton()->isEnabled());
    }

    void editingThePathDisablesOkUntilItLoads() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        d.setSource(idxSpec(f));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        QVERIFY(d.okButton()->isEnabled());
        d.pathField()->selectAll();
        QTest::keyClicks(d.pathField(), dir.path() + "/missing-idx3-ubyte");
        QVERIFY(!d.okButton()->isEnabled());  // at once, before the reload
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        QVERIFY(!d.okButton()->isEnabled());
        QVERIFY(d.previewWidget()->statusLabel()->text().contains("missing-idx3-ubyte"));
    }

    void typingAPathSuggestsTheNameAndPreviews() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        QCOMPARE(d.loaderBox()->currentData().toString(), QString("idx"));  // the first loader
        QTest::keyClicks(d.pathField(), f.images);
        QCOMPARE(d.nameField()->text(), QFileInfo(dir.path()).fileName() + "-pets");
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);  // after the typing pause
        // Without a label file the images load unlabelled: 5 examples, no labels.
        QVERIFY2(d.previewWidget()->statusLabel()->text().startsWith("5 examples"),
                 qPrintable(d.previewWidget()->statusLabel()->text()));
        QVERIFY(d.okButton()->isEnabled());
        // A name the user typed is kept when the path changes.
        d.nameField()->clear();
        QTest::keyClicks(d.nameField(), "mine");
        QTest::keyClick(d.pathField(), Qt::Key_Backspace);
        QCOMPARE(d.nameField()->text(), QString("mine"));
    }

    void takenNameKeepsOkDisabled() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        SourceDialog d(SourceRole::Sensitive, &previewer_, {"pets"});
        d.setSource(idxSpec(f));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        QVERIFY(!d.okButton()->isEnabled());
        d.nameField()->clear();
        QTest::keyClicks(d.nameField(), "pets-private");
        QVERIFY(d.okButton()->isEnabled());
        QCOMPARE(d.registration().source.name, std::string("pets-private"));
    }

    void publicSourcesSayHowTheyFitTheStudysShape() {
        // Several public sources may differ in shape: the public dialog names the rule, the
        // registration carries it into the spec; the sensitive data defines the shape.
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        d.setSource(idxSpec(f));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        QVERIFY(d.resizeBox() && d.colourBox());
        QVERIFY(d.registration().resize.empty() && d.registration().colour.empty());  // default: as they are
        d.resizeBox()->setCurrentIndex(d.resizeBox()->findData(QStringLiteral("bilinear")));
        d.setFit(d.registration().resize, "replicate");
        QCOMPARE(d.registration().resize, std::string("bilinear"));
        QCOMPARE(d.registration().colour, std::string("replicate"));
        SourceDialog sensitive(SourceRole::Sensitive, &previewer_, {});
        QVERIFY(!sensitive.resizeBox() && !sensitive.colourBox());
    }

    void tasksAreEditedInTheDialog() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        d.setSource(idxSpec(f));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        TaskEditor* t = d.taskEditor();
        QVERIFY(!t->addTask("", {"cat"}).isEmpty());
        QVERIFY(!t->addTask("pets", {}).isEmpty());
        // Through the widgets: name, tick cat and dog, Add.
        QTest::keyClicks(t->nameField(), "mammal");
        t->classList()->item(0)->setCheckState(Qt::Checked);
        t->classList()->item(1)->setCheckState(Qt::Checked);
        QTest::keyClick(t->nameField(), Qt::Key_Return);
        QCOMPARE(d.tasks().size(), std::size_t(1));
        QCOMPARE(d.tasks()[0].name, std::string("mammal"));
        QCOMPARE(d.tasks()[0].classes, (std::vector<std::string>{"cat", "dog"}));
        QVERIFY(!t->addTask("mammal", {"bird"}).isEmpty());  // names are unique
        QCOMPARE(t->taskList()->item(0)->text(), QString("mammal = cat | dog"));
    }

    void slowLoadRunsOffTheGuiThreadAndOnlyTheNewestIsShown() {
        GatedPreviewer gated;
        SourceDialog d(SourceRole::Public, &gated, {});
        d.setSource({"x", "idx", "/nowhere/old-idx3-ubyte", {}});
        QTRY_COMPARE(gated.calls.load(), 1);
        // The load blocks, the GUI does not: a timer fires, OK is off, the status says loading.
        bool fired = false;
        QTimer::singleShot(10, [&] { fired = true; });
        QTRY_VERIFY_WITH_TIMEOUT(fired, 1000);
        QVERIFY(d.previewPending());
        QVERIFY(!d.okButton()->isEnabled());
        QVERIFY(d.previewWidget()->statusLabel()->text().startsWith("Loading"));
        // A new path while the old load runs: the old one is cancelled and its answer dropped.
        d.pathField()->setText("/nowhere/new-idx3-ubyte");
        d.refreshPreview();
        gated.gate.release(2);
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        QCOMPARE(gated.calls.load(), 2);
        QCOMPARE(gated.cancelledSeen.load(), 1);
        QCOMPARE(d.previewWidget()->hashLabel()->text(), QString("Content hash: hash-of-new-idx3-ubyte"));
        QCOMPARE(d.registration().facts.contentHash, std::string("hash-of-new-idx3-ubyte"));
        QVERIFY(d.okButton()->isEnabled());
    }

    void mailSnippetsShowTheSender() {
        QTemporaryDir dir;
        const QString file = dir.path() + "/inbox.mbox";
        QVERIFY(testing::writeFile(file,
                                   "From alice@example.org Mon Jan  1 00:00:00 2024\n"
                                   "From: Alice <alice@example.org>\nSubject: hi\n\nLunch at noon?\n\n"
                                   "From bob@example.org Mon Jan  1 00:01:00 2024\n"
                                   "From: bob@example.org\nSubject: re\n\nYes.\n"));
        SourceDialog d(SourceRole::Sensitive, &previewer_, {});
        d.setSource({"inbox", "mbox", file.toStdString(), {}});
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        QTableWidget* rows = d.previewWidget()->snippets();
        QVERIFY2(rows->rowCount() == 2, qPrintable(d.previewWidget()->statusLabel()->text()));
        QCOMPARE(rows->item(0, 0)->text(), QString("email"));
        QCOMPARE(rows->item(0, 1)->text(), QString("alice@example.org"));
        QCOMPARE(rows->item(0, 2)->text(), QString("Lunch at noon?"));
        QCOMPARE(rows->item(1, 1)->text(), QString("bob@example.org"));
        QVERIFY(d.previewWidget()->statusLabel()->text().contains("2 users"));
    }

    void csvManifestShowsColourThumbnails() {
        QTemporaryDir dir;
        QImage red(8, 8, QImage::Format_RGB32), blue(8, 8, QImage::Format_RGB32);
        red.fill(qRgb(255, 0, 0));
        blue.fill(qRgb(0, 0, 255));
        QVERIFY(red.save(dir.path() + "/red.png"));
        QVERIFY(blue.save(dir.path() + "/blue.png"));
        const QString csv = dir.path() + "/manifest.csv";
        QVERIFY(testing::writeFile(csv, "Path,Warm\nred.png,1\nblue.png,0\n"));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        d.setSource({"colours", "csv-images", csv.toStdString(), {{"channels", "3"}, {"size", "4"}}});
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        SourcePreviewWidget* p = d.previewWidget();
        QVERIFY2(p->statusLabel()->text().startsWith(QString::fromUtf8("2 examples · 3×4×4 images")),
                 qPrintable(p->statusLabel()->text()));
        QCOMPARE(p->thumbnails()->count(), 2);
        QCOMPARE(p->thumbnails()->item(0)->text(), QString("Warm"));
        QCOMPARE(p->thumbnails()->item(1)->text(), QString::fromUtf8("—"));  // no positive label
        // A solid colour stays that colour through resizing and the thumbnail.
        const QImage first = p->thumbnails()->item(0)->icon().pixmap(QSize(56, 56)).toImage();
        const QImage second = p->thumbnails()->item(1)->icon().pixmap(QSize(56, 56)).toImage();
        QCOMPARE(QColor(first.pixel(10, 10)), QColor(255, 0, 0));
        QCOMPARE(QColor(second.pixel(10, 10)), QColor(0, 0, 255));
    }

    void genericManifestNameProposesTheFolderAndAFreeName() {
        // "manifest.csv" names nothing: the folder does; a name the study has gets "-2", "-3".
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("chest-xray"));
        const QString folder = dir.path() + "/chest-xray";
        QImage red(8, 8, QImage::Format_RGB32);
        red.fill(qRgb(255, 0, 0));
        QVERIFY(red.save(folder + "/red.png"));
        const QString csv = folder + "/Manifest.csv";
        QVERIFY(testing::writeFile(csv, "Path,Warm\nred.png,1\n"));
        const QStringList takenSets[] = {{}, {"chest-xray"}, {"chest-xray", "chest-xray-2", "other"}};
        const QString expected[] = {"chest-xray", "chest-xray-2", "chest-xray-3"};
        for (int i = 0; i < 3; ++i) {
            SourceDialog d(SourceRole::Public, &previewer_, takenSets[i]);
            d.loaderBox()->setCurrentIndex(d.loaderBox()->findData("csv-images"));
            QTest::keyClicks(d.pathField(), csv);
            QCOMPARE(d.nameField()->text(), expected[i]);
            QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
            QVERIFY2(d.okButton()->isEnabled(), qPrintable(d.previewWidget()->statusLabel()->text()));
            QCOMPARE(d.registration().source.name, expected[i].toStdString());
        }
        // A stem that names its data is kept.
        const QString named = folder + "/ward-7.csv";
        QVERIFY(testing::writeFile(named, "Path,Warm\nred.png,1\n"));
        SourceDialog d(SourceRole::Public, &previewer_, {"chest-xray"});
        d.loaderBox()->setCurrentIndex(d.loaderBox()->findData("csv-images"));
        QTest::keyClicks(d.pathField(), named);
        QCOMPARE(d.nameField()->text(), QString("ward-7"));
    }

    // A CSV manifest picked while the loader is the default "IDX images" (once hidden by the IDX
    // filter, then "wrong magic number (first bytes 0x50 0x61 …)"): the dialog switches to the CSV
    // loader, says why, and the manifest previews.
    void aCsvManifestPickedUnderIdxSwitchesTheLoader() {
        QTemporaryDir dir;
        QImage red(8, 8, QImage::Format_RGB32);
        red.fill(qRgb(255, 0, 0));
        QVERIFY(red.save(dir.path() + "/red.png"));
        const QString csv = dir.path() + "/labels.csv";
        QVERIFY(testing::writeFile(csv, "Path,Warm\nred.png,1\n"));
        SourceDialog d(SourceRole::Public, &previewer_, {});
        QCOMPARE(d.loaderBox()->currentData().toString(), QString("idx"));  // the default
        d.choosePath(csv);
        QCOMPARE(d.loaderBox()->currentData().toString(), QString("csv-images"));
        QCOMPARE(d.pathField()->text(), csv);
        auto* note = d.findChild<QLabel*>("sourceNote");
        QVERIFY(note && !note->isHidden());
        QVERIFY2(
            note->text().startsWith(QString::fromUtf8("labels.csv is not read by “IDX images (MNIST, Fashion-MNIST)”: "
                                                      "the loader is now “CSV manifest + images”")),
            qPrintable(note->text()));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        QVERIFY2(d.okButton()->isEnabled(), qPrintable(d.previewWidget()->statusLabel()->text()));
        // A file the chosen loader reads keeps it, with no note.
        SourceDialog csvDialog(SourceRole::Public, &previewer_, {});
        csvDialog.loaderBox()->setCurrentIndex(csvDialog.loaderBox()->findData("csv-images"));
        csvDialog.choosePath(csv);
        QCOMPARE(csvDialog.loaderBox()->currentData().toString(), QString("csv-images"));
        QVERIFY(csvDialog.findChild<QLabel*>("sourceNote")->isHidden());
    }

    void thumbnailGridStartsAtTheTop() {
        SourcePreviewWidget w;
        w.resize(300, 200);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        SourcePreview p;
        p.facts.kind = dpmix::data::SourceKind::Images;
        p.facts.examples = kPreviewExamples;
        p.facts.channels = 1;
        p.facts.height = p.facts.width = 8;
        for (int i = 0; i < kPreviewExamples; ++i) {
            QImage img(8, 8, QImage::Format_Grayscale8);
            img.fill(i * 7);
            p.thumbnails << img;
            p.thumbnailLabels << QString("class %1").arg(i % 3);
        }
        QScrollBar* bar = w.thumbnails()->verticalScrollBar();
        for (int shown = 0; shown < 2; ++shown) {  // also after the previous preview was scrolled down
            w.showPreview(p);
            QCoreApplication::processEvents();
            QVERIFY2(bar->maximum() > bar->minimum(), "the fixture must overflow the grid");
            QCOMPARE(bar->value(), bar->minimum());
            bar->setValue(bar->maximum());
        }
    }

    void userCountUsesTheUserColumnsName() {
        SourcePreviewWidget w;
        SourcePreview p;
        p.facts.kind = dpmix::data::SourceKind::Images;
        p.facts.examples = 1200;
        p.facts.users = 400;
        w.showPreview(p);
        QVERIFY2(w.statusLabel()->text().contains("400 users"), qPrintable(w.statusLabel()->text()));
        p.userColumn = "Patient";
        w.showPreview(p);
        QVERIFY2(w.statusLabel()->text().contains("400 patients"), qPrintable(w.statusLabel()->text()));
        p.userColumn = "patient_id";
        w.showPreview(p);
        QVERIFY2(w.statusLabel()->text().contains("400 patients"), qPrintable(w.statusLabel()->text()));
        p.userColumn = "col 3";  // not a word: the generic noun
        w.showPreview(p);
        QVERIFY2(w.statusLabel()->text().contains("400 users"), qPrintable(w.statusLabel()->text()));
    }

    void textSourceShowsSnippetsWithDomainAndUser() {
        QTemporaryDir dir;
        const QString file = dir.path() + "/notes.jsonl";
        QVERIFY(testing::writeFile(file,
                                   "{\"text\": \"hello   world\", \"user\": \"ann\", \"domain\": \"chat\"}\n"
                                   "{\"text\": \"second\\nline\", \"user\": \"bob\"}\n"
                                   "{\"text\": \"third\", \"user\": \"ann\", \"domain\": \"chat\"}\n"));
        SourceDialog d(SourceRole::Sensitive, &previewer_, {});
        dpmix::data::SourceSpec s{"notes", "jsonl", file.toStdString(), {}};
        d.setSource(s);
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), kLoadTimeoutMs);
        SourcePreviewWidget* p = d.previewWidget();
        QVERIFY2(p->statusLabel()->text().startsWith("3 examples"), qPrintable(p->statusLabel()->text()));
        QVERIFY(p->statusLabel()->text().contains("2 users"));
        // Domains: "chat" and the file stem "notes" for the record without one.
        QVERIFY2(p->labelsLabel()->text().contains("2 domains: chat, notes"), qPrintable(p->labelsLabel()->text()));
        QTableWidget* rows = p->snippets();
        QCOMPARE(rows->rowCount(), 3);
        QCOMPARE(rows->item(0, 0)->text(), QString("chat"));
        QCOMPARE(rows->item(0, 1)->text(), QString("ann"));
        QCOMPARE(rows->item(0, 2)->text(), QString("hello world"));  // whitespace collapsed
        QCOMPARE(rows->item(1, 0)->text(), QString("notes"));
        QCOMPARE(rows->item(1, 2)->text(), QString("second line"));
        QVERIFY(d.okButton()->isEnabled());
        auto summary = dpmix::data::summarizeSource(s);
        QVERIFY(summary.ok());
        QVERIFY(p->hashLabel()->text().endsWith(QString::fromStdString(summary->contentHash)));
    }
};

QTEST_MAIN(TstSourceDialog)
#include "tst_source_dialog.moc"
