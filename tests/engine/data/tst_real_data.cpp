// Integration tests on the real data from scripts/fetch-data.sh (label "data"; QSKIP when absent).
// Expected numbers come from the data sets' documentation (Fashion-MNIST: 6,000 / 1,000 images
// per class) or from independent Python reads of the same files (noted at each check).
#include "engine/data/source_loader.h"

#include "tests/support/unit_test.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

using namespace dpmix::data;

class TestRealData : public QObject {
    Q_OBJECT
    std::string dataDir_;
    std::string path(const std::string& rel) { return dataDir_ + "/" + rel; }
    // QSKIP must be in the test function itself: in a helper it would only leave the helper.
    bool fetched(const std::string& rel) { return std::filesystem::exists(path(rel)); }

private Q_SLOTS:
    void initTestCase() {
        dataDir_ = dpmix::test_support::environment("DPMIX_DATA_DIR", dpmix::test_support::sourceDir() + "/data");
    }
    void fashionMnist() {
        if (!fetched("fashion-mnist/train-images-idx3-ubyte.gz"))
            QSKIP("data not fetched (run scripts/fetch-data.sh): fashion-mnist/train-images-idx3-ubyte.gz");
        SourceSpec spec{"fashion",
                        "idx",
                        path("fashion-mnist/train-images-idx3-ubyte.gz"),
                        {{"labels", "train-labels-idx1-ubyte.gz"}, {"classes", "fashion-mnist"}}};
        auto d = loadImageSource(spec);
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        QCOMPARE(d->size(), std::size_t(60000));
        QCOMPARE(d->height, 28);
        QCOMPARE(d->labelNames[9], std::string("Ankle boot"));
        for (std::size_t c = 0; c < 10; ++c) {
            double count = 0;
            for (std::size_t i = 0; i < 60000; ++i) count += d->labels[i * 10 + c];
            QCOMPARE(count, 6000.0);  // Zalando's README: 6,000 training images per class
        }
        QCOMPARE(d->labels[9], 1.0f);  // the first training image is an ankle boot (label 9)
        // Python: sum of the first image's bytes = 76247.
        const double firstSum = std::accumulate(d->pixels.begin(), d->pixels.begin() + 784, 0.0);
        DPMIX_COMPARE_NEAR(firstSum * 255.0, 76247.0, 0.05);

        spec.path = path("fashion-mnist/t10k-images-idx3-ubyte.gz");
        spec.options["labels"] = "t10k-labels-idx1-ubyte.gz";
        spec.options["tasks"] = "footwear=Sandal|Sneaker|Ankle boot";
        auto t = loadImageSource(spec);
        QVERIFY(t.ok());
        QCOMPARE(t->size(), std::size_t(10000));
        QCOMPARE(std::accumulate(t->labels.begin(), t->labels.end(), 0.0), 3000.0);  // 3 classes × 1,000
    }
    void mnistDigitsFromNpm() {
        if (!fetched("mnist-digits/9.json")) QSKIP("data not fetched (run scripts/fetch-data.sh): mnist-digits/9.json");
        auto d = loadImageSource({"digits", "mnist-json", path("mnist-digits"), {}});
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        QCOMPARE(d->size(), std::size_t(10000));
        // Python: len(json.load(...)["data"]) / 784 per file.
        const double expected[10] = {1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978};
        for (std::size_t c = 0; c < 10; ++c) {
            double count = 0;
            for (std::size_t i = 0; i < d->size(); ++i) count += d->labels[i * 10 + c];
            QCOMPARE(count, expected[c]);
        }
    }
    void spamAssassin() {
        if (!fetched("email/spam-assassin/easy-ham-1"))
            QSKIP("data not fetched (run scripts/fetch-data.sh): email/spam-assassin/easy-ham-1");
        auto c = loadTextSource({"mail", "spam-assassin", path("email/spam-assassin"), {}});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->documents.size(), std::size_t(6046));
        // Python: easy-ham-1/00001: "From: Robert Elz <kre@munnari.OZ.AU>", body of 1604 bytes.
        QCOMPARE(c->documents[0].user, std::string("kre@munnari.oz.au"));
        QCOMPARE(c->documents[0].text.size(), std::size_t(1604));
        QVERIFY(c->documents[0].text.rfind("    Date:", 0) == 0);
        std::set<std::string> users;
        for (const auto& doc : c->documents) users.insert(doc.user);
        // Python: email.utils.parseaddr on each unfolded From: header gives 2,559 distinct senders.
        QCOMPARE(users.size(), std::size_t(2559));
    }
    void textDomains() {
        if (!fetched("text")) QSKIP("data not fetched (run scripts/fetch-data.sh): text");
        std::vector<std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(path("text")))
            if (entry.is_regular_file() && entry.path().extension() == ".jsonl")
                files.push_back(entry.path().filename().string());
        std::sort(files.begin(), files.end());
        QVERIFY2(files.size() >= 10, "fetch-data.sh should produce at least 10 text domains");
        for (const std::string& file : files) {
            const std::string filePath = path("text/" + file);
            std::ifstream f(filePath, std::ios::binary);
            QVERIFY(f.is_open());
            std::size_t lines = 0;
            for (std::string line; std::getline(f, line);)
                if (line.find_first_not_of(" \t\r\n\v\f") != std::string::npos) ++lines;
            auto c = loadTextSource({file, "jsonl", filePath, {}});
            QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
            QCOMPARE(c->documents.size(), lines);
            QCOMPARE(c->documents.front().domain, std::filesystem::path(file).stem().string());
        }
    }
};

QTEST_APPLESS_MAIN(TestRealData)
#include "tst_real_data.moc"
