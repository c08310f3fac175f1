// The AdaMix-R views: the error-increase chart's numbers (means and sample std over seeds worked
// out by hand below), the ε_i histogram, quantiles and extremes, and the views in a window with a
// fake image loader (offscreen).
#include "app/workbench/views/adamix_results.h"
#include "app/workbench/views/adamix_view.h"
#include "engine/experiments/adamix_records.h"
#include "tests/engine/project/project_fixture.h"
#include "widgets/bar_chart_widget.h"
#include "widgets/image_grid_widget.h"

#include <QComboBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace dpmix::workbench;

namespace {

AdamixCell cell(const QString& method, double eps, long long seed, double error, double increase, long long shots = 5,
                long long perClass = 50) {
    AdamixCell c;
    c.method = method;
    c.epsilon = eps;
    c.shots = shots;
    c.perClass = perClass;
    c.seed = seed;
    c.testError = error;
    c.errorIncrease = increase;
    return c;
}

AdamixExperiment experiment() {
    AdamixExperiment e;
    e.runId = 7;
    e.title = "run 7";
    e.privateSource = "private";
    const double inf = std::numeric_limits<double>::infinity();
    e.cells = {cell("paragon", inf, 0, 0.10, 0.0), cell("paragon", inf, 1, 0.20, 0.0),
               cell("public-only", inf, 0, 0.30, 200.0), cell("public-only", inf, 1, 0.40, 100.0),
               // DP-GD listed first and at ε = 3 before ε = 1: the chart orders both.
               cell("dp-gd", 3.0, 0, 0.25, 150.0), cell("dp-gd", 3.0, 1, 0.45, 125.0),
               cell("dp-gd", 1.0, 0, 0.50, 400.0), cell("adamix-r", 1.0, 0, 0.12, 20.0),
               cell("adamix-r", 1.0, 1, 0.26, 30.0), cell("adamix-r", 3.0, 0, 0.11, 10.0),
               cell("adamix-r", 3.0, 1, 0.24, 20.0),
               cell("adamix-r", 1.0, 0, 0.2, 99.0, 10, 0)};  // another setting: not in the 5/50 chart
    AdamixEstimates est;
    est.epsilon = 2.0;
    est.delta = 1e-5;
    est.shots = 5;
    est.perClass = 50;
    // ε_i = 0.0, 0.1, …, 1.9 and one at exactly ε = 2 (the last bin holds it).
    for (int i = 0; i <= 20; ++i) est.examples.push_back({100 + i, "c", 0.1 * i, double(i), 0.0});
    est.spearmanIsolation = 0.5;
    est.spearmanLoss = 0.25;
    e.estimates = {est};
    return e;
}

}  // namespace

class TestAdamixView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void increaseChartAveragesOverSeedsPerMethodAndEpsilon() {
        const AdamixIncreaseChart chart = adamixIncreaseChart(experiment(), 5, 50);
        QCOMPARE(chart.data.categories, (QStringList{"ε = 1", "ε = 3"}));
        QCOMPARE(chart.data.series.size(), 2);
        QCOMPARE(chart.data.series[0].name, QString("AdaMix-R"));  // the method before its baselines
        QCOMPARE(chart.data.series[1].name, QString("DP-GD from zero"));
        // AdaMix-R at ε = 1: increases 20 and 30 → mean 25, sample std √50 ≈ 7.071.
        QCOMPARE(chart.data.series[0].values[0], 25.0);
        QVERIFY(std::abs(chart.data.series[0].errors[0] - std::sqrt(50.0)) < 1e-12);
        QCOMPARE(chart.data.series[0].values[1], 15.0);
        // DP-GD at ε = 1 has one seed: std 0 there, mean 400; test error 50 %, "1 seed".
        QCOMPARE(chart.data.series[1].values[0], 400.0);
        QCOMPARE(chart.data.series[1].errors[0], 0.0);
        QVERIFY2(
            chart.data.series[1].details[0].contains("50.0 %") && chart.data.series[1].details[0].contains("1 seed"),
            qPrintable(chart.data.series[1].details[0]));
        // AdaMix-R's test errors at ε = 1: 12 % and 26 % → 19.0 % ± 9.9 (std of 0.12, 0.26 = 0.0990).
        QVERIFY2(chart.data.series[0].details[0].contains("19.0 % ± 9.9"), qPrintable(chart.data.series[0].details[0]));
        // Public only: one reference line at the mean increase (200 + 100) / 2.
        QCOMPARE(chart.data.references.size(), 1);
        QCOMPARE(chart.data.references[0].value, 150.0);
        // The paragon's mean test error (10 % and 20 %) is in the note.
        QVERIFY2(chart.note.contains("15.0 %"), qPrintable(chart.note));
        QVERIFY(dpmix::widgets::validateBarChartData(chart.data).isEmpty());
    }

    void aMethodMissingAtAnEpsilonIsNamed() {
        AdamixExperiment e = experiment();
        std::erase_if(e.cells, [](const AdamixCell& c) { return c.method == "adamix-r" && c.epsilon == 3.0; });
        const AdamixIncreaseChart chart = adamixIncreaseChart(e, 5, 50);
        QVERIFY(std::isnan(chart.data.series[0].values[1]));
        QVERIFY2(chart.note.contains("AdaMix-R at ε = 3"), qPrintable(chart.note));
    }

    void settingsAreListedOnce() {
        const auto settings = adamixSettings(experiment());
        QCOMPARE(settings.size(), std::size_t(2));
        QCOMPARE(settings[0], (std::pair<long long, long long>{5, 50}));
        QCOMPARE(settings[1], (std::pair<long long, long long>{10, 0}));
        QCOMPARE(adamixSettingLabel(10, 0), QString("10 shots per class, all private examples"));
    }

    void histogramBinsEveryEstimateUpToTheGuarantee() {
        const AdamixEstimates est = experiment().estimates[0];
        const AdamixHistogram h = adamixEpsilonHistogram(est, 4);  // bins of width 0.5
        QCOMPARE(h.data.categories.size(), 4);
        // 0.0–0.4 → 5, 0.5–0.9 → 5, 1.0–1.4 → 5, 1.5–2.0 → 6 (ε_i = ε sits in the last bin).
        QCOMPARE(h.data.series[0].values, (QVector<double>{5, 5, 5, 6}));
        QVERIFY2(h.note.contains("estimate") && h.note.contains("median 1"), qPrintable(h.note));
        QVERIFY2(h.note.contains("48 % of them below ε/2"), qPrintable(h.note));  // 10 of 21
        QVERIFY2(h.note.contains("0.5") && h.note.contains("0.25"), qPrintable(h.note));
    }

    void anEstimateAboveTheGuaranteeIsShownNotHidden() {
        AdamixEstimates est = experiment().estimates[0];
        est.examples.push_back({999, "c", 2.5, 0.0, 0.0});
        const AdamixHistogram h = adamixEpsilonHistogram(est, 4);
        QCOMPARE(h.data.categories.size(), 5);
        QCOMPARE(h.data.series[0].values.back(), 1.0);
        QVERIFY(h.note.contains("inconsistent"));
    }

    void quantilesInterpolateBetweenOrderStatistics() {
        QCOMPARE(quantileOf({4.0, 1.0, 3.0, 2.0}, 0.5), 2.5);
        QCOMPARE(quantileOf({4.0, 1.0, 3.0, 2.0}, 1.0 / 3.0), 2.0);
        QVERIFY(std::isnan(quantileOf({}, 0.5)));
    }

    void extremesBreakTiesBySourceIndex() {
        AdamixEstimates est;
        est.examples = {{5, "a", 1.0}, {3, "a", 1.0}, {9, "a", 0.2}, {1, "a", 0.2}, {2, "a", 0.5}};
        const AdamixExtremes x = adamixExtremes(est, 2);
        QCOMPARE(x.highest[0].sourceIndex, 3LL);
        QCOMPARE(x.highest[1].sourceIndex, 5LL);
        QCOMPARE(x.lowest[0].sourceIndex, 1LL);
        QCOMPARE(x.lowest[1].sourceIndex, 9LL);
    }

    void theIncreaseViewShowsTheLatestRunAndFollowsTheSetting() {
        AdamixView view({experiment()});
        QVERIFY(!view.showsEmptyState());
        QCOMPARE(view.settingSelector()->count(), 2);
        QCOMPARE(view.chart()->data().series.size(), 2);
        view.settingSelector()->setCurrentIndex(1);  // 10 shots, all private: AdaMix-R only
        QCOMPARE(view.chart()->data().series.size(), 1);
        QCOMPARE(view.chart()->data().series[0].values[0], 99.0);
    }

    void theExampleViewShowsTheHistogramAndTheGallery() {
        std::vector<long long> asked;
        ExampleImageLoader loader = [&asked](const QString& source, const std::vector<long long>& indices, QString&) {
            asked = indices;
            QList<QImage> images;
            if (source != "private") return images;
            for (std::size_t i = 0; i < indices.size(); ++i) images << QImage(4, 4, QImage::Format_Grayscale8);
            return images;
        };
        ExamplePrivacyView view({experiment()}, loader);
        view.resize(900, 700);
        QVERIFY(!view.showsEmptyState());
        QCOMPARE(view.chart()->data().categories.size(), 20);
        QCOMPARE(view.gallery()->rowCount(), 2);
        QCOMPARE(view.gallery()->columnCount(), ExamplePrivacyView::kGalleryCount);
        // The highest first: ε_i = 2.0 is example 120, then 119 …; the lowest: 100, 101 ….
        QCOMPARE(asked.front(), 120LL);
        QCOMPARE(asked[ExamplePrivacyView::kGalleryCount], 100LL);
        QVERIFY(view.gallery()->caption().contains("estimates"));
        QVERIFY(view.note()->text().contains("not a guarantee"));
    }

    void theGalleryExplainsWhyItIsMissing() {
        ExampleImageLoader failing = [](const QString&, const std::vector<long long>&, QString& error) {
            error = "example 120 is not in \"private\"";
            return QList<QImage>{};
        };
        ExamplePrivacyView view({experiment()}, failing);
        QCOMPARE(view.gallery()->rowCount(), 0);
        QVERIFY2(view.gallery()->emptyText().contains("No gallery: example 120 is not in"),
                 qPrintable(view.gallery()->emptyText()));
        // The histogram does not depend on the images.
        QCOMPARE(view.chart()->data().categories.size(), 20);
    }

    void emptyProjectsSayWhatWouldFillTheViews() {
        AdamixView increase({});
        QVERIFY(increase.showsEmptyState() && increase.emptyState()->text().contains("No AdaMix-R experiment"));
        AdamixExperiment noEstimates = experiment();
        noEstimates.estimates.clear();
        ExamplePrivacyView examples({noEstimates}, {});
        QVERIFY(examples.showsEmptyState() && examples.emptyState()->text().contains("per-example"));
    }

    void aStoredExperimentIsReadLightAndItsEstimatesLater() {
        // A hand-made grid stored in a project file: a paragon cell, an AdaMix-R cell without a
        // per-example record and one with (cell 2). The snapshot reads it without the records;
        // the loader reads them when the "Who pays" view needs them.
        namespace ex = dpmix::experiments;
        QTemporaryDir dir;
        const QString path = dir.filePath("adamix.dpmix");
        auto file = dpmix::project::ProjectFile::create(path.toStdString(), dpmix::project::testing::tinySpec(),
                                                        dpmix::project::testing::tinyFacts(), true)
                        .value();
        ex::AdamixGridOptions o;
        o.shots = {2};
        o.privatePerClass = {3};
        o.epsilons = {1.0};
        o.seeds = 1;
        o.methods = {ex::AdamixMethod::Paragon, ex::AdamixMethod::AdamixR};
        ex::AdamixGridResult r;
        ex::AdamixCell paragon, plain, withRecord;
        paragon.testError = 0.1;
        plain.method = withRecord.method = ex::AdamixMethod::AdamixR;
        plain.epsilon = withRecord.epsilon = 1.0;
        plain.shots = withRecord.shots = 2;
        plain.privatePerClass = withRecord.privatePerClass = 3;
        plain.testError = 0.2;
        withRecord.testError = 0.15;
        withRecord.certifiedEpsilon = 0.98;
        withRecord.delta = 1e-5;
        withRecord.perExample = 0;
        r.cells = {paragon, plain, withRecord};
        ex::AdamixPerExample pe;
        pe.cell = 2;
        pe.sourceIndex = {40, 41, 42};
        pe.labels = {1, 0, 1};
        pe.epsilon = Eigen::Vector3d(0.25, 0.5, 0.98);
        pe.isolation = Eigen::Vector3d(1.0, 2.0, 3.0);
        pe.loss = Eigen::Vector3d(0.1, 0.2, 0.3);
        pe.datasetEpsilon = 0.98;
        pe.quantileLevels = ex::epsilonQuantileLevels();
        pe.quantiles = {0.25, 0.275, 0.3125, 0.5, 0.74, 0.932, 0.98};
        r.perExample = {pe};
        ex::AdamixExperimentSetup setup;
        setup.privateSource = "clothes";
        setup.extractorSource = "digits";
        setup.classes = {"coat", "shirt"};
        const long long id = ex::storeAdamixExperiment(file, setup, o, r).value();

        auto experiment = adamixExperimentFrom(ex::readAdamixExperiment(file, id, false).value());
        QCOMPARE(experiment.runId, id);
        QCOMPARE(experiment.cells.size(), std::size_t(3));
        QVERIFY(!experiment.examplesLoaded);
        QCOMPARE(experiment.estimates.size(), std::size_t(1));  // the cell with a record only
        QCOMPARE(experiment.estimates[0].epsilon, 0.98);
        QVERIFY(experiment.estimates[0].examples.empty());

        const QString error = projectEstimatesLoader(path)(experiment);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(experiment.examplesLoaded);
        const auto& examples = experiment.estimates[0].examples;
        QCOMPARE(examples.size(), std::size_t(3));
        QCOMPARE(examples[2].sourceIndex, 42LL);
        QCOMPARE(examples[2].epsilon, 0.98);
        QCOMPARE(examples[0].label, QStringLiteral("shirt"));
        QCOMPARE(examples[1].label, QStringLiteral("coat"));
        QCOMPARE(examples[1].isolation, 2.0);
    }

    void theGalleryLoadsImagesFromTheSourcesAsRegistered() {
        // Three 2×2 grey images in IDX files, registered as the project file records a source
        // (name, loader, resolved path, options as JSON): the loader reads them by index.
        QTemporaryDir dir;
        auto idx = [](const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& data) {
            std::string bytes(2, static_cast<char>(0));  // magic: 0, 0, type 8 (unsigned bytes), rank
            bytes += static_cast<char>(8);
            bytes += static_cast<char>(dims.size());
            for (std::uint32_t d : dims)
                for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>((d >> shift) & 0xFF);
            bytes.append(data.begin(), data.end());
            return bytes;
        };
        const std::string images = dir.filePath("priv-images.idx").toStdString();
        const std::string labels = dir.filePath("priv-labels.idx").toStdString();
        std::ofstream(images, std::ios::binary) << idx({3, 2, 2}, {0, 0, 0, 0, 255, 255, 255, 255, 0, 255, 0, 255});
        std::ofstream(labels, std::ios::binary) << idx({3}, {0, 1, 1});
        ProjectSnapshot snapshot;
        dpmix::project::SourceRecord record;
        record.role = dpmix::project::SourceRole::Sensitive;
        record.name = "priv";
        record.loader = "idx";
        record.path = images;
        record.optionsJson = "{\"labels\": \"" + labels + "\"}";
        snapshot.sources = {record};
        const auto load = projectImageLoader(snapshot);

        QString error;
        const QList<QImage> got = load("priv", {1, 2}, error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(got.size(), 2);
        QCOMPARE(got[0].size(), QSize(2, 2));
        QCOMPARE(qGray(got[0].pixel(0, 0)), 255);  // image 1 is white
        QCOMPARE(qGray(got[1].pixel(0, 0)), 0);    // image 2: black, white
        QCOMPARE(qGray(got[1].pixel(1, 0)), 255);

        QVERIFY(load("priv", {3}, error).isEmpty());  // past the end: the data changed since the run
        QVERIFY2(error.contains("not in \"priv\""), qPrintable(error));
        error.clear();
        QVERIFY(load("other", {0}, error).isEmpty());
        QVERIFY2(error.contains("no source called \"other\""), qPrintable(error));
    }
};

QTEST_MAIN(TestAdamixView)
#include "tst_adamix_view.moc"
