// The "csv-images" loader (CheXpert-style manifest + PNG/JPEG files), CSV parsing and resizing.
#include "data_fixtures.h"
#include "engine/data/csv_table.h"
#include "engine/data/image_file.h"
#include "engine/data/source_loader.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::data;
namespace fx = dpmix::data::fixtures;

class TestCsvImagesLoader : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string path(const std::string& name) { return dir_.filePath(name); }
    dpmix::Result<ImageDataset> load(const std::string& csv, std::map<std::string, std::string> options = {}) {
        fx::writeFile(path("manifest.csv"), csv);
        return loadImageSource({"cxr", "csv-images", path("manifest.csv"), std::move(options)});
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // 4×4 grey PNG, left half 0, right half 255; 2×2 RGB PNG, pure red; 8×8 grey JPEG of 200.
        std::vector<std::uint8_t> halves(16);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 4; ++x) halves[y * 4 + x] = x < 2 ? 0 : 255;
        fx::writePng(path("images/p1/a.png"), 4, 4, 1, halves);
        fx::writePng(path("images/p2/red.png"), 2, 2, 3, {255, 0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0});
        fx::writeJpeg(path("images/p2/flat.jpg"), 8, 8, 1, std::vector<std::uint8_t>(64, 200));
    }

    void csvParsing() {
        auto t = parseCsv("\xEF\xBB\xBFPath,Note\r\na.png,\"x, \"\"quoted\"\"\nline\"\r\n\r\nb.png,\n", "m.csv");
        QVERIFY(t.ok());
        QCOMPARE(t->header, (std::vector<std::string>{"Path", "Note"}));
        QCOMPARE(t->rows.size(), std::size_t(2));
        QCOMPARE(t->rows[0][1], std::string("x, \"quoted\"\nline"));
        QCOMPARE(t->rows[1][1], std::string(""));
        QCOMPARE(t->rowLines, (std::vector<std::size_t>{2, 5}));
        auto bad = parseCsv("a,b\n1,2,3\n", "m.csv");
        QVERIFY(!bad.ok() && bad.error().message.find("line 2: 3 fields, expected 2") != std::string::npos);
        auto open = parseCsv("a\n\"never closed\n", "m.csv");
        QVERIFY(!open.ok() && open.error().message.find("not closed") != std::string::npos);
    }

    void resizeByHand() {
        // 4 → 2 along x (scale 2, triangle half-width 2): output 0 is centred at 1.0; input
        // centres 0.5, 1.5, 2.5 get weights 0.75, 0.75, 0.25 (3.5 gets 0), normalised by 1.75.
        DecodedImage in{1, 1, 4, {0.0f, 0.4f, 0.8f, 1.0f}};
        const DecodedImage out = resizeImage(in, 1, 2);
        QCOMPARE(out.pixels.size(), std::size_t(2));
        DPMIX_COMPARE_NEAR(out.pixels[0], (0.75f * 0.0f + 0.75f * 0.4f + 0.25f * 0.8f) / 1.75f, 1e-6);
        DPMIX_COMPARE_NEAR(out.pixels[1], (0.25f * 0.4f + 0.75f * 0.8f + 0.75f * 1.0f) / 1.75f, 1e-6);
        // 2 → 4 (upscale, plain bilinear): output 1 centred at 0.75 → 0.75·a + 0.25·b.
        DecodedImage small{1, 1, 2, {0.0f, 1.0f}};
        const DecodedImage big = resizeImage(small, 1, 4);
        DPMIX_COMPARE_NEAR(big.pixels[0], 0.0f, 1e-6);  // clamps at the edge
        DPMIX_COMPARE_NEAR(big.pixels[1], 0.25f, 1e-6);
        DPMIX_COMPARE_NEAR(big.pixels[2], 0.75f, 1e-6);
        DPMIX_COMPARE_NEAR(big.pixels[3], 1.0f, 1e-6);
        // A constant image stays constant at any size.
        DecodedImage flat{3, 5, 7, std::vector<float>(105, 0.3f)};
        for (float v : resizeImage(flat, 3, 2).pixels) QVERIFY(std::fabs(v - 0.3f) < 1e-6);
    }

    void manifestWithPoliciesAndUsers() {
        const std::string csv =
            "Path,Patient,Sex,Edema,Effusion\n"
            "images/p1/a.png,p1,F,1,-1\n"
            "images/p2/red.png,p2,M,,0\n"
            "images/p2/flat.jpg,p2,M,-1.0,1.0\n";
        auto d = load(csv, {{"user_column", "Patient"},
                            {"ignore_columns", "Sex"},
                            {"size", "2"},
                            {"uncertain.Effusion", "mask"},
                            {"blank", "one"}});
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        QCOMPARE(d->size(), std::size_t(3));
        QCOMPARE(d->labelNames, (std::vector<std::string>{"Edema", "Effusion"}));
        // Edema: 1, blank->one, -1->zero (default). Effusion: -1->mask, 0, 1.
        QCOMPARE(d->labels, (std::vector<float>{1, 0, 1, 0, 0, 1}));
        QCOMPARE(d->labelMask, (std::vector<unsigned char>{1, 0, 1, 1, 1, 1}));
        QCOMPARE(d->users, (std::vector<std::string>{"p1", "p2", "p2"}));
        QCOMPARE(d->channels, 1);
        QCOMPARE(d->height, 2);
        // Halves image 4×4 → 2×2: each output column averages inputs 0..2 or 1..3 (weights
        // .75,.75,.25 / 1.75): left = (0.25·255/255)/1.75 = 1/7, right = 6/7.
        DPMIX_COMPARE_NEAR(d->pixels[0], 1.0f / 7.0f, 1e-5);
        DPMIX_COMPARE_NEAR(d->pixels[1], 6.0f / 7.0f, 1e-5);
        // Pure red in grey = stb's luminance (77·255)>>8 = 76 → 76/255.
        DPMIX_COMPARE_NEAR(d->pixels[4], 76.0f / 255.0f, 1e-5);
        // JPEG at quality 100 of a flat 200 decodes within a couple of levels of 200.
        DPMIX_COMPARE_NEAR(d->pixels[8], 200.0f / 255.0f, 3.0f / 255.0f);
    }

    void rgbAndRectangularSize() {
        auto d = load("Path,Red\nimages/p2/red.png,1\n", {{"channels", "3"}, {"size", "3x5"}});
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        QCOMPARE(d->channels, 3);
        QCOMPARE(d->height, 3);
        QCOMPARE(d->width, 5);
        QCOMPARE(d->pixels.size(), std::size_t(45));
        QCOMPARE(d->pixels[0], 1.0f);   // R plane
        QCOMPARE(d->pixels[15], 0.0f);  // G plane
        QCOMPARE(d->pixels[44], 0.0f);  // B plane
    }

    void nihFindingColumn() {
        // NIH layout: "Image Index", "Finding Labels" (pipe-separated), "Patient ID".
        const std::string csv =
            "Image Index,Finding Labels,Follow-up #,Patient ID\n"
            "images/p1/a.png,Effusion|Mass,0,1\n"
            "images/p2/red.png,No Finding,0,2\n"
            "images/p2/flat.jpg,Mass,1,2\n";
        std::map<std::string, std::string> options{{"path_column", "Image Index"},
                                                   {"finding_column", "Finding Labels"},
                                                   {"user_column", "Patient ID"},
                                                   {"size", "2"}};
        auto d = load(csv, options);
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        QCOMPARE(d->labelNames, (std::vector<std::string>{"Effusion", "Mass"}));
        QCOMPARE(d->labels, (std::vector<float>{1, 1, 0, 0, 0, 1}));
        QCOMPARE(d->users, (std::vector<std::string>{"1", "2", "2"}));
        options["labels"] = "Mass,Hernia,Effusion";  // fixed label order, a finding absent from the file
        auto fixed = load(csv, options);
        QVERIFY(fixed.ok());
        QCOMPARE(fixed->labels, (std::vector<float>{1, 0, 1, 0, 0, 0, 1, 0, 0}));
        options["labels"] = "Effusion";
        auto missing = load(csv, options);
        QVERIFY(!missing.ok() &&
                missing.error().message.find(
                    "line 2, column 'Finding Labels': finding 'Mass' is not in option 'labels'") != std::string::npos);
    }

    void parallelDecodeKeepsRowOrderAndNamesTheFirstBadRow() {
        // 40 rows of 4 distinct flat images; decoded on several threads, each must land in its row.
        for (int v = 0; v < 4; ++v)
            fx::writePng(path("flat/" + std::to_string(v) + ".png"), 3, 3, 1,
                         std::vector<std::uint8_t>(9, std::uint8_t(60 * v)));
        std::string csv = "Path,Edema\n";
        for (int i = 0; i < 40; ++i) csv += "flat/" + std::to_string(i % 4) + ".png,1\n";
        auto d = load(csv, {{"size", "3"}});
        QVERIFY(d.ok());
        for (int i = 0; i < 40; ++i) QCOMPARE(d->pixels[i * 9 + 4], (60.0f * (i % 4)) / 255.0f);
        // Rows 25 and 31 (CSV lines 27 and 33) are missing: always line 27 is reported.
        std::string bad = "Path,Edema\n";
        for (int i = 0; i < 40; ++i)
            bad += (i == 25 || i == 31 ? "flat/missing.png" : "flat/1.png") + std::string(",1\n");
        for (int repeat = 0; repeat < 20; ++repeat) {
            auto r = load(bad);
            QVERIFY(!r.ok());
            QVERIFY2(r.error().message.find("line 27:") != std::string::npos, r.error().message.c_str());
        }
    }

    void progressAndCancellation() {
        fx::writeFile(path("manifest.csv"),
                      "Path,Edema\nimages/p1/a.png,1\nimages/p2/red.png,0\nimages/p2/flat.jpg,1\n");
        const SourceSpec spec{"cxr", "csv-images", path("manifest.csv"), {{"size", "4"}}};
        std::vector<dpmix::ProgressEvent> events;
        LoadControl control;
        control.progress = [&](const dpmix::ProgressEvent& e) { events.push_back(e); };
        auto d = loadImageSource(spec, control);
        QVERIFY(d.ok());
        QVERIFY(!events.empty());
        QCOMPARE(events.back().stage, std::string("load cxr"));
        QCOMPARE(events.back().done, 3LL);
        QCOMPARE(events.back().total, 3LL);
        control.cancel.cancel();
        QVERIFY_THROWS_EXCEPTION(dpmix::Cancelled, (void)loadImageSource(spec, control));
    }

    void badInputs_data() {
        QTest::addColumn<std::string>("csv");
        QTest::addColumn<std::string>("optionKey");
        QTest::addColumn<std::string>("optionValue");
        QTest::addColumn<std::string>("expected");
        using namespace std::string_literals;
        QTest::newRow("no path column") << "File,Edema\nimages/p1/a.png,1\n"s
                                        << ""s
                                        << ""s
                                        << "no image path column 'Path'"s;
        QTest::newRow("column twice") << "Path,Cat,Cat\nimages/p1/a.png,1,0\n"s
                                      << ""s
                                      << ""s
                                      << "two columns named 'Cat'"s;
        QTest::newRow("non-numeric label") << "Path,Edema\nimages/p1/a.png,yes\n"s
                                           << ""s
                                           << ""s
                                           << "line 2, column 'Edema': value 'yes'"s;
        // A patient column read as a label (no "labels" option) points to the user column (docs/MANUAL.md, "Building
        // a study from your own images").
        QTest::newRow("patient column as a label") << "Path,Patient,Edema\nimages/p1/a.png,p001,1\n"s
                                                   << ""s
                                                   << ""s
                                                   << "column 'Patient': value 'p001' is not a label, expected 1, 0, "
                                                      "-1 (uncertain) or blank. Every column but the image path (and "
                                                      "the user column) is read as a label unless the labels are "
                                                      "named: if 'Patient' says whose image it is, choose it as the "
                                                      "user column (User column in the source dialog, option "
                                                      "user_column)"s;
        QTest::newRow("named label not a label")
            << "Path,Edema\nimages/p1/a.png,yes\n"s
            << "labels"s
            << "Edema"s
            << "value 'yes' is not a label, expected 1, 0, -1 (uncertain) or blank"s;
        QTest::newRow("label out of range") << "Path,Edema\nimages/p1/a.png,2\n"s
                                            << ""s
                                            << ""s
                                            << "expected 1, 0, -1"s;
        QTest::newRow("empty data set") << "Path,Edema\n"s
                                        << ""s
                                        << ""s
                                        << "empty data set"s;
        QTest::newRow("missing image") << "Path,Edema\nimages/p1/a.png,1\nimages/none.png,0\n"s
                                       << ""s
                                       << ""s
                                       << "none.png' does not exist"s;
        QTest::newRow("unknown label column") << "Path,Edema\nimages/p1/a.png,1\n"s
                                              << "labels"s
                                              << "Edema,Mass"s
                                              << "no label column 'Mass'"s;
        QTest::newRow("bad policy") << "Path,Edema\nimages/p1/a.png,1\n"s
                                    << "uncertain"s
                                    << "maybe"s
                                    << "expected zero, one or mask"s;
        QTest::newRow("bad size") << "Path,Edema\nimages/p1/a.png,1\n"s
                                  << "size"s
                                  << "0x4"s
                                  << "option 'size'"s;
        QTest::newRow("bad channels") << "Path,Edema\nimages/p1/a.png,1\n"s
                                      << "channels"s
                                      << "2"s
                                      << "expected 1 (grey) or 3 (RGB)"s;
        QTest::newRow("policy for unknown label") << "Path,Edema\nimages/p1/a.png,1\n"s
                                                  << "blank.Mass"s
                                                  << "one"s
                                                  << "names no label column"s;
        QTest::newRow("not an image") << "Path,Edema\nmanifest.csv,1\n"s
                                      << ""s
                                      << ""s
                                      << "cannot be decoded"s;
    }
    void badInputs() {
        QFETCH(std::string, csv);
        QFETCH(std::string, optionKey);
        QFETCH(std::string, optionValue);
        QFETCH(std::string, expected);
        std::map<std::string, std::string> options;
        if (!optionKey.empty()) options[optionKey] = optionValue;
        auto d = load(csv, options);
        QVERIFY(!d.ok());
        const std::string& message = d.error().message;
        QVERIFY2(dpmix::test_support::contains(message, expected), message.c_str());
        QVERIFY2(dpmix::test_support::contains(message, "cxr"), message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestCsvImagesLoader)
#include "tst_csv_images_loader.moc"
