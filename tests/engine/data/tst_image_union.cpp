// Several public image sources as one set: fitting a source to the study's shape (resize and
// colour rules, named explicitly) and joining the sources into components defined per source.
#include "engine/data/image_fit.h"
#include "engine/data/image_union.h"
#include "tests/support/unit_test.h"

using namespace dpmix::data;

namespace {

ImageDataset images(int n, int channels, int height, int width, std::vector<std::string> labelNames,
                    std::vector<float> labels, float base = 0.0f) {
    ImageDataset d;
    d.channels = channels;
    d.height = height;
    d.width = width;
    const std::size_t size = static_cast<std::size_t>(channels) * height * width;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n) * size; ++i)
        d.pixels.push_back(base + 0.001f * static_cast<float>(i % 97));
    d.labelNames = std::move(labelNames);
    d.labels = std::move(labels);
    return d;
}

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

class TestImageUnion : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameShapeIsUnchangedBitForBit() {
        const ImageDataset d = images(3, 1, 4, 4, {"a"}, {1, 0, 1});
        auto fitted = fitImages(d, {1, 4, 4}, ResizeRule::None, ColourRule::None, "s");
        QVERIFY(fitted.ok());
        QVERIFY(fitted->pixels == d.pixels);
        QVERIFY(fitted->labels == d.labels);
    }

    void otherShapesNeedTheirRule() {
        const ImageDataset small = images(2, 1, 4, 4, {"a"}, {1, 0});
        auto unsized = fitImages(small, {1, 8, 8}, ResizeRule::None, ColourRule::None, "digits");
        QVERIFY(!unsized.ok());
        QVERIFY2(mentions(unsized.error().message, "'digits'") && mentions(unsized.error().message, "1x4x4") &&
                     mentions(unsized.error().message, "1x8x8") && mentions(unsized.error().message, "\"bilinear\""),
                 unsized.error().message.c_str());
        auto grey = fitImages(small, {3, 4, 4}, ResizeRule::None, ColourRule::None, "digits");
        QVERIFY(!grey.ok());
        QVERIFY2(mentions(grey.error().message, "\"replicate\""), grey.error().message.c_str());
        // The wrong direction is no rule either.
        QVERIFY(!fitImages(small, {3, 4, 4}, ResizeRule::None, ColourRule::Luminance, "digits").ok());
        const ImageDataset rgb = images(1, 3, 4, 4, {"a"}, {1});
        auto colour = fitImages(rgb, {1, 4, 4}, ResizeRule::None, ColourRule::Replicate, "photos");
        QVERIFY(!colour.ok());
        QVERIFY2(mentions(colour.error().message, "\"luminance\""), colour.error().message.c_str());
        QVERIFY(!parseResizeRule("nearest").ok());
        QVERIFY(!parseColourRule("grey").ok());
        QVERIFY(parseResizeRule("").ok() && *parseResizeRule("") == ResizeRule::None);
        QVERIFY(*parseColourRule("luminance") == ColourRule::Luminance);
    }

    void greyIsReplicatedAndRgbWeightedByLuma() {
        const ImageDataset grey = images(2, 1, 2, 2, {"a"}, {1, 0});
        auto rgb = fitImages(grey, {3, 2, 2}, ResizeRule::None, ColourRule::Replicate, "g");
        QVERIFY(rgb.ok());
        QCOMPARE(rgb->channels, 3);
        QCOMPARE(rgb->size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i)
            for (std::size_t c = 0; c < 3; ++c)
                for (std::size_t p = 0; p < 4; ++p) QCOMPARE(rgb->pixels[i * 12 + c * 4 + p], grey.pixels[i * 4 + p]);
        // One pixel (R, G, B) = (0.2, 0.4, 0.6): 0.299·0.2 + 0.587·0.4 + 0.114·0.6 = 0.363 by hand.
        ImageDataset colour;
        colour.channels = 3;
        colour.height = colour.width = 1;
        colour.pixels = {0.2f, 0.4f, 0.6f};
        colour.labelNames = {"a"};
        colour.labels = {1};
        auto luma = fitImages(colour, {1, 1, 1}, ResizeRule::None, ColourRule::Luminance, "c");
        QVERIFY(luma.ok());
        DPMIX_COMPARE_NEAR(luma->pixels.front(), 0.363, 1e-6);
    }

    void bilinearResizeAveragesAndKeepsLabels() {
        // A 2×2 image shrunk to 1×1 is the mean of its pixels; a constant image stays constant.
        ImageDataset d;
        d.channels = 1;
        d.height = d.width = 2;
        d.pixels = {0.0f, 0.4f, 0.8f, 0.4f, 0.5f, 0.5f, 0.5f, 0.5f};
        d.labelNames = {"a", "b"};
        d.labels = {1, 0, 0, 1};
        auto shrunk = fitImages(d, {1, 1, 1}, ResizeRule::Bilinear, ColourRule::None, "s");
        QVERIFY(shrunk.ok());
        QCOMPARE(shrunk->size(), std::size_t(2));
        DPMIX_COMPARE_NEAR(shrunk->pixels[0], 0.4, 1e-6);
        DPMIX_COMPARE_NEAR(shrunk->pixels[1], 0.5, 1e-6);
        QVERIFY(shrunk->labels == d.labels);
        auto grown = fitImages(d, {1, 4, 4}, ResizeRule::Bilinear, ColourRule::None, "s");
        QVERIFY(grown.ok());
        for (std::size_t p = 16; p < 32; ++p) DPMIX_COMPARE_NEAR(grown->pixels[p], 0.5, 1e-6);
    }

    void joinsSourcesIntoComponentsDefinedPerSource() {
        const ImageDataset fashion = images(3, 1, 2, 2, {"top", "shoe"}, {1, 0, 0, 1, 1, 1});
        const ImageDataset digits = images(2, 1, 2, 2, {"0"}, {1, 0}, 0.5f);
        auto joined = joinImageSets({{"fashion", fashion}, {"digits", digits}});
        QVERIFY(joined.ok());
        const ImageDataset& u = joined->images;
        QCOMPARE(u.size(), std::size_t(5));
        QCOMPARE(u.labelNames, (std::vector<std::string>{"fashion / top", "fashion / shoe", "digits / 0"}));
        QCOMPARE(joined->componentSource, (std::vector<std::size_t>{0, 0, 1}));
        QCOMPARE(joined->imageSource, (std::vector<std::size_t>{0, 0, 0, 1, 1}));
        QCOMPARE(joined->sourceImages, (std::vector<std::size_t>{3, 2}));
        QCOMPARE(u.labels, (std::vector<float>{1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0}));
        QCOMPARE(joined->defined, (std::vector<unsigned char>{1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1}));
        // Pixels: fashion's then digits', unchanged.
        QVERIFY(std::equal(fashion.pixels.begin(), fashion.pixels.end(), u.pixels.begin()));
        QVERIFY(std::equal(digits.pixels.begin(), digits.pixels.end(), u.pixels.begin() + 12));
    }

    void oneSourceIsItsOwnSetUnchanged() {
        const ImageDataset fashion = images(3, 1, 2, 2, {"top", "shoe"}, {1, 0, 0, 1, 1, 1});
        auto joined = joinImageSets({{"fashion", fashion}});
        QVERIFY(joined.ok());
        QCOMPARE(joined->images.labelNames, fashion.labelNames);  // no "source / " prefix
        QVERIFY(joined->images.pixels == fashion.pixels && joined->images.labels == fashion.labels);
        QVERIFY(joined->defined.empty());
    }

    void badUnionsAreRefused() {
        const ImageDataset a = images(2, 1, 2, 2, {"x"}, {1, 0});
        auto duplicate = joinImageSets({{"s", a}, {"s", a}});
        QVERIFY(!duplicate.ok());
        QVERIFY2(mentions(duplicate.error().message, "\"s / x\""), duplicate.error().message.c_str());
        auto shapes = joinImageSets({{"s", a}, {"t", images(1, 1, 3, 3, {"x"}, {1})}});
        QVERIFY(!shapes.ok() && mentions(shapes.error().message, "'t'"));
        auto unlabelled = joinImageSets({{"s", a}, {"t", images(1, 1, 2, 2, {}, {})}});
        QVERIFY(!unlabelled.ok() && mentions(unlabelled.error().message, "no component"));
    }

    void unlabelledSourceIsOneComponent() {
        const ImageDataset all = withAllImagesPositive(images(3, 1, 2, 2, {}, {}), "all");
        QCOMPARE(all.labelNames, std::vector<std::string>{"all"});
        QCOMPARE(all.labels, (std::vector<float>{1, 1, 1}));
    }
};

QTEST_APPLESS_MAIN(TestImageUnion)
#include "tst_image_union.moc"
