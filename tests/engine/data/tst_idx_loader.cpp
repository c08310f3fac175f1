// The "idx" and "mnist-json" loaders on generated fixtures, including every bad-input case.
#include "data_fixtures.h"
#include "engine/data/source_loader.h"

#include "tests/support/unit_test.h"

#include <filesystem>

using namespace dpmix::data;
namespace fx = dpmix::data::fixtures;

namespace {
// 3 images of 2×3: image i has pixel k = 10·i + k (so every value is known by construction).
std::vector<std::uint8_t> imageBytes() {
    std::vector<std::uint8_t> b;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 6; ++k) b.push_back(static_cast<std::uint8_t>(10 * i + k));
    b[5] = 255;
    return b;
}
}  // namespace

class TestIdxLoader : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string path(const std::string& name) { return dir_.filePath(name); }
    SourceSpec spec(const std::string& images, std::map<std::string, std::string> options = {}) {
        return SourceSpec{"fixture", "idx", path(images), std::move(options)};
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string images = fx::idxBytes({3, 2, 3}, imageBytes());
        const std::string labels = fx::idxBytes({3}, {2, 0, 2});
        fx::writeFile(path("img.idx"), images);
        fx::writeFile(path("lab.idx"), labels);
        fx::writeFile(path("img.idx.gz"), fx::gzipBytes(images));
        fx::writeFile(path("lab.idx.gz"), fx::gzipBytes(labels));
        fx::writeFile(path("lab4.idx"), fx::idxBytes({4}, {0, 1, 2, 3}));
        fx::writeFile(path("badmagic.idx"), std::string("\x00\x01\x08\x03", 4) + images.substr(4));
        fx::writeFile(path("labels.csv"), "Path,Patient,Effusion\nimg0.png,p0,1\n");
        fx::writeFile(path("truncated.idx"), images.substr(0, images.size() - 1));
        fx::writeFile(path("truncated.idx.gz"), fx::gzipBytes(images).substr(0, 20));
        fx::writeFile(path("shortheader.idx"), images.substr(0, 9));
        // Four dimensions of 2^32 - 1: their product overflows 64 bits (a 20-byte file).
        fx::writeFile(path("overflow.idx"), std::string("\x00\x00\x08\x04", 4) + std::string(16, '\xff'));
    }
    void pixelsAndOneHotLabels() {
        auto d = loadImageSource(spec("img.idx", {{"labels", "lab.idx"}}));
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        QCOMPARE(d->size(), std::size_t(3));
        QCOMPARE(d->channels, 1);
        QCOMPARE(d->height, 2);
        QCOMPARE(d->width, 3);
        const auto bytes = imageBytes();
        for (std::size_t k = 0; k < bytes.size(); ++k) QCOMPARE(d->pixels[k], bytes[k] / 255.0f);
        QCOMPARE(d->pixels[5], 1.0f);
        // Labels 2,0,2 with K = max+1 = 3 classes named "0","1","2".
        QCOMPARE(d->labelNames, (std::vector<std::string>{"0", "1", "2"}));
        QCOMPARE(d->labels, (std::vector<float>{0, 0, 1, 1, 0, 0, 0, 0, 1}));
        QVERIFY(d->labelMask.empty());
        QVERIFY(d->users.empty());
    }
    void gzipGivesTheSameDataAndHash() {
        auto raw = loadImageSource(spec("img.idx", {{"labels", "lab.idx"}}));
        auto gz = loadImageSource(spec("img.idx.gz", {{"labels", "lab.idx.gz"}}));
        QVERIFY(raw.ok() && gz.ok());
        QCOMPARE(gz->pixels, raw->pixels);
        QCOMPARE(contentHash(*gz), contentHash(*raw));
    }
    void classNamesTasksAndLimit() {
        auto d = loadImageSource(spec("img.idx", {{"labels", "lab.idx"},
                                                  {"classes", "shoe, bag, coat, hat"},
                                                  {"tasks", "warm=coat|hat;carry=bag"},
                                                  {"limit", "2"}}));
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        QCOMPARE(d->size(), std::size_t(2));
        QCOMPARE(d->labelNames, (std::vector<std::string>{"warm", "carry"}));
        QCOMPARE(d->labels, (std::vector<float>{1, 0, 0, 0}));  // coat -> warm; shoe -> neither
    }
    void imagesWithoutLabels() {
        auto d = loadImageSource(spec("img.idx"));
        QVERIFY(d.ok());
        QCOMPARE(d->numLabels(), std::size_t(0));
    }
    void summaryCountsAndHashes() {
        auto s = summarizeSource(spec("img.idx.gz", {{"labels", "lab.idx.gz"}}));
        QVERIFY(s.ok());
        QCOMPARE(nameOf(s->kind), std::string("images"));
        QCOMPARE(s->examples, 3LL);
        QCOMPARE(s->height, 2);
        QCOMPARE(s->contentHash.size(), std::size_t(64));
    }
    void badInputs_data() {
        QTest::addColumn<std::string>("images");
        QTest::addColumn<std::string>("labels");
        QTest::addColumn<std::string>("extraKey");
        QTest::addColumn<std::string>("extraValue");
        QTest::addColumn<std::string>("expected");
        using namespace std::string_literals;
        QTest::newRow("wrong magic") << "badmagic.idx"s
                                     << ""s
                                     << ""s
                                     << ""s
                                     << "wrong magic number"s;
        // A CSV manifest chosen with the default (IDX) loader: the message says what the file is.
        QTest::newRow("a CSV manifest") << "labels.csv"s
                                        << ""s
                                        << ""s
                                        << ""s
                                        << "wrong magic number (first bytes 0x50 0x61, expected 0x00 0x00): it "
                                           "looks like a CSV file (text with commas on its first line); a CSV "
                                           "manifest of images is read by the csv-images loader"s;
        QTest::newRow("truncated data") << "truncated.idx"s
                                        << ""s
                                        << ""s
                                        << ""s
                                        << "truncated data"s;
        QTest::newRow("truncated header") << "shortheader.idx"s
                                          << ""s
                                          << ""s
                                          << ""s
                                          << "truncated header"s;
        QTest::newRow("dimensions overflow") << "overflow.idx"s
                                             << ""s
                                             << ""s
                                             << ""s
                                             << "dimensions overflow"s;
        QTest::newRow("truncated gzip") << "truncated.idx.gz"s
                                        << ""s
                                        << ""s
                                        << ""s
                                        << "truncated gzip"s;
        QTest::newRow("count mismatch") << "img.idx"s
                                        << "lab4.idx"s
                                        << ""s
                                        << ""s
                                        << "image/label count mismatch"s;
        QTest::newRow("missing file") << "nothere.idx"s
                                      << ""s
                                      << ""s
                                      << ""s
                                      << "does not exist"s;
        QTest::newRow("missing labels") << "img.idx"s
                                        << "nolabels.idx"s
                                        << ""s
                                        << ""s
                                        << "does not exist"s;
        QTest::newRow("labels as images") << "lab.idx"s
                                          << ""s
                                          << ""s
                                          << ""s
                                          << "expected 3 (N×H×W)"s;
        QTest::newRow("too few classes") << "img.idx"s
                                         << "lab.idx"s
                                         << "classes"s
                                         << "a,b"s
                                         << "one name per label value"s;
        QTest::newRow("class named twice") << "img.idx"s
                                           << "lab.idx"s
                                           << "classes"s
                                           << "a,a,b"s
                                           << "names 'a' twice"s;
        QTest::newRow("unknown task class") << "img.idx"s
                                            << "lab.idx"s
                                            << "tasks"s
                                            << "x=9"s
                                            << "unknown class '9'"s;
        QTest::newRow("typo in option") << "img.idx"s
                                        << "lab.idx"s
                                        << "lables"s
                                        << "x"s
                                        << "unknown option 'lables'"s;
        QTest::newRow("bad limit") << "img.idx"s
                                   << "lab.idx"s
                                   << "limit"s
                                   << "ten"s
                                   << "option 'limit' = 'ten'"s;
    }
    void badInputs() {
        QFETCH(std::string, images);
        QFETCH(std::string, labels);
        QFETCH(std::string, extraKey);
        QFETCH(std::string, extraValue);
        QFETCH(std::string, expected);
        std::map<std::string, std::string> options;
        if (!labels.empty()) options["labels"] = labels;
        if (!extraKey.empty()) options[extraKey] = extraValue;
        auto d = loadImageSource(spec(images, options));
        QVERIFY(!d.ok());
        const std::string& message = d.error().message;
        QVERIFY2(dpmix::test_support::contains(message, expected), message.c_str());
        QVERIFY2(dpmix::test_support::contains(message, "fixture"), message.c_str());  // names the source
    }
    void loaderKindMismatch() {
        SourceSpec s{"fixture", "jsonl", path("img.idx"), {}};
        QVERIFY(!loadImageSource(s).ok());
        s.loader = "nonsense";
        auto r = loadImageSource(s);
        QVERIFY(!r.ok() && r.error().message.find("unknown loader 'nonsense'") != std::string::npos);
        QVERIFY(isImageLoader("idx") && isImageLoader("csv-images") && !isImageLoader("jsonl"));
        QVERIFY(isTextLoader("maildir") && !isTextLoader("idx"));
    }

    // ---- mnist-json ----
    void mnistJsonFolder() {
        // 0.json: two images, first pixel 0.5 / 1; 3.json: one image (object form).
        std::string zero = "[";
        for (int k = 0; k < 2 * 784; ++k) zero += (k ? "," : "") + std::string(k == 0 ? "0.5" : k == 784 ? "1" : "0");
        zero += "]";
        std::string three = "{ \"data\": [";
        for (int k = 0; k < 784; ++k) three += (k ? ", " : "") + std::string(k == 783 ? "0.25" : "0");
        three += "] }";
        fx::writeFile(path("digits/0.json"), zero);
        fx::writeFile(path("digits/3.json"), three);
        SourceSpec s{"digits", "mnist-json", path("digits"), {}};
        auto d = loadImageSource(s);
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        QCOMPARE(d->size(), std::size_t(3));
        QCOMPARE(d->height, 28);
        QCOMPARE(d->numLabels(), std::size_t(10));  // always digits 0..9
        QCOMPARE(d->pixels[0], 0.5f);
        QCOMPARE(d->pixels[784], 1.0f);
        QCOMPARE(d->pixels[3 * 784 - 1], 0.25f);
        QCOMPARE(d->labels[0], 1.0f);
        QCOMPARE(d->labels[10], 1.0f);
        QCOMPARE(d->labels[20 + 3], 1.0f);
        s.options["tasks"] = "round=0|6|8|9";
        auto t = loadImageSource(s);
        QVERIFY(t.ok());
        QCOMPARE(t->labels, (std::vector<float>{1, 1, 0}));
    }
    void mnistJsonBadInputs() {
        fx::writeFile(path("baddigits/1.json"), "[0, 0.5, 2]");
        fx::writeFile(path("shortdigits/2.json"), "[0, 0.5, 1]");
        fx::writeFile(path("notdigit.json"), "[0]");
        auto a = loadImageSource({"m", "mnist-json", path("baddigits/1.json"), {}});
        QVERIFY(!a.ok() && a.error().message.find("expected a pixel value in [0,1]") != std::string::npos);
        auto b = loadImageSource({"m", "mnist-json", path("shortdigits"), {}});
        QVERIFY(!b.ok() && b.error().message.find("multiple of 784") != std::string::npos);
        auto c = loadImageSource({"m", "mnist-json", path("notdigit.json"), {}});
        QVERIFY(!c.ok() && c.error().message.find("<digit>.json") != std::string::npos);
        auto e = loadImageSource({"m", "mnist-json", path("emptyfolder-missing"), {}});
        QVERIFY(!e.ok() && e.error().message.find("does not exist") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestIdxLoader)
#include "tst_idx_loader.moc"
