// Help ▸ Where public data pays (docs/WORKBENCH.md, "Where public data pays (the regime map)"): the heat map's cells
// from a small stored map written by the test (regime_map_fixture.h) per pool kind and baseline, the selectors, the
// caption in plain words, Open map… with a good and a broken file, and the reference map bundled with the workbench (it
// parses and holds regimes). With DPMIX_SCREENSHOT_DIR set, the dialog on the bundled map is saved there as
// regime-map.png (docs/screenshots/regime-map.png).
#include "app/workbench/parameters/regime_reference.h"
#include "app/workbench/views/regime_map_dialog.h"
#include "tests/app/workbench/regime_map_fixture.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

using namespace dpmix;
using namespace dpmix::workbench;
using experiments::PoolKind;

class TstRegimeMapDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cellsAreThePairedDifferencesOfOneKind() {
        const auto map = testing::smallRegimeMap();
        const auto vsRandomInit = regimeHeatCells(map, PoolKind::Heterogeneous, RegimeBaseline::RandomInit);
        QCOMPARE(vsRandomInit.size(), 2);
        const auto& big = vsRandomInit[0];  // the map's order: (8,000, 4), then (500, 0.5)
        QCOMPARE(big.n, 8000LL);
        QCOMPARE(big.epsilon, 4.0);
        QCOMPARE(big.seeds, 3);
        QCOMPARE(big.mean, map.cells[1].vsRandomInit.mean);  // (0.80 + 0.81 + 0.79 − 0.90 − 0.91 − 0.92) / 3
        QVERIFY(std::abs(big.mean - (-0.11)) < 1e-9);
        QVERIFY(big.beyondNoise());
        const auto vsUniform = regimeHeatCells(map, PoolKind::Heterogeneous, RegimeBaseline::Uniform);
        QVERIFY(std::abs(vsUniform[0].mean - 0.0) < 1e-9);
        QVERIFY(!vsUniform[0].beyondNoise());
        QCOMPARE(regimeHeatCells(map, PoolKind::OneSource, RegimeBaseline::RandomInit).size(), 1);
    }

    void theSelectorsChooseKindAndBaseline() {
        RegimeMapDialog dialog(testing::smallRegimeMap(), "small-map.json");
        // It opens on the first kind the map holds: one public data set.
        QCOMPARE(dialog.poolKindBox()->currentData().toInt(), static_cast<int>(PoolKind::OneSource));
        QCOMPARE(dialog.heatMap()->sizes(), (QList<long long>{1000}));
        QCOMPARE(dialog.heatMap()->annotationAt(0, 0), QString("+0.097 *"));  // 0.91 − 0.8133, beyond noise
        QCOMPARE(dialog.heatMap()->baseline(), QString("Random Init"));
        dialog.setPoolKind(PoolKind::Heterogeneous);
        QCOMPARE(dialog.heatMap()->sizes(), (QList<long long>{500, 8000}));
        QCOMPARE(dialog.heatMap()->epsilons(), (QList<double>{0.5, 4.0}));
        QCOMPARE(dialog.heatMap()->annotationAt(1, 1), QString("-0.110 *"));
        dialog.setBaseline(RegimeBaseline::Uniform);
        QCOMPARE(dialog.heatMap()->baseline(), QString("Uniform"));
        QVERIFY(dialog.heatMap()->annotationAt(1, 1).endsWith("0.000"));  // even, no mark
        const QString caption = dialog.caption()->text();
        QVERIFY2(caption.contains("Green: choosing the public data's mixture privately (DP-MixMin) paid off against "
                                  "equal weights (Uniform)"),
                 qPrintable(caption));
        QVERIFY2(caption.contains("An empirical estimate on reference data (a test map)"), qPrintable(caption));
        QVERIFY(dialog.originLabel()->text().contains("small-map.json"));
    }

    void openMapReadsAFileAndKeepsTheMapOnAnError() {
        RegimeMapDialog dialog(testing::smallRegimeMap(), "small-map.json");
        QTemporaryDir dir;
        const QString broken = dir.filePath("broken.json");
        {
            QFile f(broken);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"schema\": \"something-else\"}");
        }
        const QString error = dialog.openMapFile(broken);
        QVERIFY2(error.contains("broken.json") && error.contains("schema"), qPrintable(error));
        QCOMPARE(dialog.heatMap()->sizes(), (QList<long long>{1000}));  // the map shown stays
        const QString good = dir.filePath("mine.json");
        {
            QFile f(good);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                ("{\"schema\": \"dpmix-regime-map-v1\", \"reference\": \"my map\", \"cells\": [" +
                 testing::regimeCellJson("one-source", 250, 2.0, {0.7, 0.7, 0.7}, {0.6, 0.6, 0.6}, {0.7, 0.7, 0.7}) +
                 "]}")
                    .c_str());
        }
        QCOMPARE(dialog.openMapFile(good), QString());
        QCOMPARE(dialog.heatMap()->sizes(), (QList<long long>{250}));
        QVERIFY(dialog.originLabel()->text().contains("mine.json"));
        QVERIFY(dialog.caption()->text().contains("(my map)"));
        // A kind the map lacks: the plot is empty and a note says so.
        dialog.setPoolKind(PoolKind::Heterogeneous);
        QVERIFY(dialog.heatMap()->sizes().isEmpty());
        QCOMPARE(dialog.note()->text(),
                 QString("This map holds no regime with several public data sets of different kinds."));
    }

    void theBundledReferenceMapIsReadable() {
        const auto& reference = referenceRegimeMap();
        QVERIFY2(reference, reference ? "" : reference.error().message.c_str());
        QVERIFY(!reference->cells.empty());
        RegimeMapDialog dialog(reference, "the reference map bundled with the workbench");
        QVERIFY(!dialog.heatMap()->sizes().isEmpty());
        if (const QString shots = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR"); !shots.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            QVERIFY(dialog.grab().save(shots + "/regime-map.png"));
        }
    }
};

QTEST_MAIN(TstRegimeMapDialog)
#include "tst_regime_map_dialog.moc"
