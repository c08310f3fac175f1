// The Private set tab on a project held in memory: S drawn by class (rows = classes, hover names
// class and index, 8-bit pixels as stored), the accuracy table with the references made for the
// shown run only, the privacy line from the run's ledger, the live view of a running job, the
// exports (grid PNG, the set as a source), and the empty state.
#include "app/workbench/views/private_set_view.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "widgets/image_grid_widget.h"

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace dpmix;
using namespace dpmix::workbench;

namespace {

// 3 classes × 2 images of 4×4 grey; pixel i of the set = i / 95 (so the last is 1), and one
// pixel outside [0, 1] that the drawing clamps.
RunResults psgRun(long long id) {
    RunResults r;
    r.run.id = id;
    r.run.method = "psg";
    r.run.epsilon = 10.0;
    r.run.status = project::RunStatus::Done;
    r.run.configJson = nlohmann::json{
        {"classes", {"a", "b", "c"}},
        {"images_per_class", 2},
        {"channels", 1},
        {"height", 4},
        {"width", 4},
        {"iterations", 5}}.dump();
    for (int i = 0; i < 96; ++i) r.privateSet.push_back(static_cast<float>(i) / 95.0f);
    r.privateSet[5] = -3.0f;
    r.metrics = {{id, "accuracy-convnet", "training-1", 0.7},
                 {id, "accuracy-convnet", "training-2", 0.8},
                 {id, "accuracy-mlp", "training-1", 0.5},
                 {id, "accuracy-noise-convnet", "training-1", 0.1}};
    privacy::Ledger ledger;
    ledger.record(privacy::gaussianEntry("psg", "train", privacy::PrivacyUnit::Example, 0.032, 0.68, 300, 1e-5, 0.1));
    r.ledgers = {{1, id, "", privacy::ledgerToJson(ledger), 10.0}};
    return r;
}

RunResults reference(long long id, const std::string& method, long long psgRunId, double accuracy) {
    RunResults r;
    r.run.id = id;
    r.run.method = method;
    r.run.status = project::RunStatus::Done;
    r.run.configJson = nlohmann::json{{"psg_run", psgRunId}}.dump();
    r.metrics = {{id, "accuracy-convnet", "training-1", accuracy}};
    return r;
}

ProjectSnapshot snapshotWithTwoPsgRuns() {
    ProjectSnapshot s;
    s.path = "/tmp/psg-view.dpmix";
    s.runs = {psgRun(1), reference(2, "psg-real-subset", 1, 0.9), reference(3, "psg-dp-sgd", 1, 0.6), psgRun(4),
              reference(5, "psg-real-subset", 4, 0.95)};
    return s;
}

}  // namespace

class TstPrivateSetView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void drawsTheNewestSetByClass() {
        PrivateSetView view(snapshotWithTwoPsgRuns());
        QCOMPARE(view.runSelector()->count(), 2);
        QCOMPARE(view.shownRunId().value(), 4LL);  // newest first
        QVERIFY(view.emptyState()->isHidden());
        auto* grid = view.grid();
        QCOMPARE(grid->rowCount(), 3);
        QCOMPARE(grid->columnCount(), 2);
        QCOMPARE(grid->toolTipAt(grid->cellRect(1, 1).center()), QString("b, image 2 of 2"));
        QCOMPARE(grid->toolTipAt(QPoint(0, 0)), QString());
        QVERIFY(grid->caption().contains("after 5 iterations"));
        // Pixels as drawn: image (class b, index 1) is the 4th image, values (48..63)/95; the
        // clamped pixel 5 of the first image draws black.
        const QList<QList<QImage>> rows = imageRowsOf(privateSetImagesOf(psgRun(4)));
        QCOMPARE(rows[1][1].pixelColor(0, 0).red(), static_cast<int>(std::lround(48.0 / 95.0 * 255)));
        QCOMPARE(rows[0][0].pixelColor(1, 1).red(), 0);
        QVERIFY(view.privacyLine()->text().contains("ε = 10"));
        QVERIFY(view.privacyLine()->text().contains("300 DP gradient steps"));
    }

    void theTableHoldsTheShownRunsReferencesOnly() {
        PrivateSetView view(snapshotWithTwoPsgRuns());
        QTableWidget* table = view.accuracyTable();
        QCOMPARE(table->rowCount(), 4);  // run 4: S ConvNet, S MLP, noise, real subset (no DP-SGD of its own)
        QCOMPARE(table->item(0, 2)->text(), QString("75.0% ± 7.1"));
        QCOMPARE(table->item(0, 3)->text(), QString("2"));
        QCOMPARE(table->item(3, 2)->text(), QString("95.0%"));
        view.runSelector()->setCurrentIndex(1);  // run 1 has both references
        QCOMPARE(view.shownRunId().value(), 1LL);
        QCOMPARE(table->rowCount(), 5);
        QCOMPARE(table->item(3, 2)->text(), QString("90.0%"));
        QVERIFY(table->item(4, 0)->text().contains("DP-SGD"));
        QCOMPARE(table->item(4, 2)->text(), QString("60.0%"));
    }

    void aRunningJobIsShownLive() {
        ProjectSnapshot empty;
        PrivateSetView view(empty);
        QVERIFY(!view.emptyState()->isHidden());
        QVERIFY(!view.grid()->isVisibleTo(&view));
        PrivateSetImages live;
        live.classes = 2;
        live.imagesPerClass = 3;
        live.height = live.width = 5;
        live.pixels.assign(150, 0.5f);
        live.iteration = 2;
        live.iterations = 7;
        live.classNames = {"x", "y"};
        view.showLive(live);
        QVERIFY(view.emptyState()->isHidden());
        QVERIFY(view.grid()->isVisibleTo(&view));
        QCOMPARE(view.grid()->rowCount(), 2);
        QCOMPARE(view.grid()->columnCount(), 3);
        QCOMPARE(view.grid()->caption(), QString("Generating (live): S after 2 of 7 iterations"));
        QVERIFY(!view.exportSet(QDir::tempPath() + "/never", "idx").isEmpty());  // nothing finished to export
        live.pixels.pop_back();  // inconsistent sizes: ignored, the last good set stays
        view.showLive(live);
        QCOMPARE(view.grid()->rowCount(), 2);
    }

    void exportsWriteTheGridAndTheSet() {
        QTemporaryDir dir;
        PrivateSetView view(snapshotWithTwoPsgRuns());
        const QString png = dir.filePath("grid.png");
        QCOMPARE(view.exportGridPng(png), QString());
        QImage written(png);
        QCOMPARE(written.size(), view.grid()->sizeHint());
        QCOMPARE(view.exportSet(dir.filePath("set"), "idx"), QString());
        QVERIFY(QFile::exists(dir.filePath("set/images-idx3-ubyte")));
        QVERIFY(QFile::exists(dir.filePath("set/source.json")));
        QVERIFY(view.exportSet(dir.filePath("set"), "idx").contains("not an empty folder"));
        QVERIFY(view.exportSet(dir.filePath("other"), "tiff").contains("tiff"));
        QVERIFY(!QFile::exists(dir.filePath("other")));
    }
};

QTEST_MAIN(TstPrivateSetView)
#include "tst_private_set_view.moc"
