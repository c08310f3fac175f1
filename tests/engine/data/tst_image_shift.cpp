// Acquisition-shifted copies of a public image set (the image loaders' "shift" option): each step
// on tiny generated images against values worked out here by hand or by an independent formula,
// chains, bad values, and a whole load through an IDX fixture.
#include "data_fixtures.h"
#include "engine/data/image_shift.h"
#include "engine/data/source_loader.h"
#include "tests/support/unit_test.h"

#include <cmath>
#include <map>
#include <numbers>

using namespace dpmix::data;
namespace fx = dpmix::data::fixtures;
using namespace std::string_literals;

namespace {

ImageDataset plane(int height, int width, std::vector<float> pixels) {
    ImageDataset d;
    d.height = height;
    d.width = width;
    d.pixels = std::move(pixels);
    return d;
}

ImageDataset constant(int images, int height, int width, float value) {
    return plane(height, width, std::vector<float>(static_cast<std::size_t>(images) * height * width, value));
}

// The pixels of `images` through `shift` (an error fails the test: Result::value() throws it).
std::vector<float> shifted(const ImageDataset& images, const std::string& shift, const std::string& source = "src") {
    return applyImageShift(images, parseImageShift(shift).value(), source).value().pixels;
}

void compareNear(const std::vector<float>& actual, const std::vector<double>& expected, double tolerance) {
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t k = 0; k < actual.size(); ++k) DPMIX_COMPARE_NEAR(actual[k], expected[k], tolerance);
}

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

class TestImageShift : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string path(const std::string& name) { return dir_.filePath(name); }
    SourceSpec idx(const std::string& name, std::map<std::string, std::string> options = {}) {
        options["labels"] = "lab.idx";
        return SourceSpec{name, "idx", path("img.idx"), std::move(options)};
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // 3 images of 28×28: image 0 all black, image 1 a horizontal ramp, image 2 mid-grey (128).
        std::vector<std::uint8_t> pixels(3 * 28 * 28, 0);
        for (int k = 0; k < 28 * 28; ++k) {
            pixels[28 * 28 + k] = static_cast<std::uint8_t>(9 * (k % 28));
            pixels[2 * 28 * 28 + k] = 128;
        }
        fx::writeFile(path("img.idx"), fx::idxBytes({3, 28, 28}, pixels));
        fx::writeFile(path("lab.idx"), fx::idxBytes({3}, {1, 0, 1}));
        fx::writeFile(path("doc.jsonl"), "{\"text\": \"hello\"}\n");
    }

    void invertFlipsPolarity() {
        compareNear(shifted(plane(2, 2, {0.0f, 0.25f, 0.5f, 1.0f}), "invert"), {1.0, 0.75, 0.5, 0.0}, 1e-7);
    }

    void gammaAndContrastFollowTheirFormulas() {
        compareNear(shifted(plane(1, 3, {0.0f, 0.25f, 1.0f}), "gamma:0.5"), {0.0, 0.5, 1.0}, 1e-7);
        compareNear(shifted(plane(1, 3, {0.0f, 1.0f, 0.5f}), "contrast:0.5"), {0.25, 0.75, 0.5}, 1e-7);
        // 0.5 + 4·(0.1 − 0.5) = −1.1 and 0.5 + 4·0.4 = 2.1 are clamped; 0.5 + 4·0.05 = 0.7.
        compareNear(shifted(plane(1, 3, {0.1f, 0.9f, 0.55f}), "contrast:4"), {0.0, 1.0, 0.7}, 1e-6);
        compareNear(shifted(plane(1, 2, {0.2f, 0.8f}), "contrast:0"), {0.5, 0.5}, 1e-7);
    }

    void lowresRoundTrip() {
        // A constant image stays constant; a 4×4 checkerboard, averaged at 2×2, becomes flat grey.
        compareNear(shifted(constant(1, 4, 4, 0.3f), "lowres:2"), std::vector<double>(16, 0.3), 1e-6);
        std::vector<float> board(16);
        for (int k = 0; k < 16; ++k) board[k] = static_cast<float>((k / 4 + k % 4) % 2);
        compareNear(shifted(plane(4, 4, board), "lowres:2"), std::vector<double>(16, 0.5), 0.05);
        // lowres at the image's own size changes nothing.
        QVERIFY(shifted(plane(4, 4, board), "lowres:4") == board);
    }

    void blurSpreadsByTheGaussianWeights() {
        compareNear(shifted(constant(1, 5, 6, 0.7f), "blur:1.5"), std::vector<double>(30, 0.7), 1e-6);
        // σ = 1: radius 3, weights exp(−d²/2)/Z over d = −3..3; a delta at the centre of 9×9 becomes
        // their outer product, and nothing beyond the radius.
        double z = 0;
        for (int d = -3; d <= 3; ++d) z += std::exp(-d * d / 2.0);
        std::vector<float> delta(81, 0.0f);
        delta[4 * 9 + 4] = 1.0f;
        std::vector<double> expected(81);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 9; ++x) {
                const int dx = x - 4, dy = y - 4;
                expected[y * 9 + x] =
                    std::abs(dx) <= 3 && std::abs(dy) <= 3 ? std::exp(-(dx * dx + dy * dy) / 2.0) / (z * z) : 0.0;
            }
        compareNear(shifted(plane(9, 9, delta), "blur:1"), expected, 1e-6);
        // Edges clamped: a delta in the corner is read by taps d = 0..−3 of the corner pixel itself.
        std::vector<float> corner(81, 0.0f);
        corner[0] = 1.0f;
        double edge = 0;
        for (int d = 0; d <= 3; ++d) edge += std::exp(-d * d / 2.0) / z;
        DPMIX_COMPARE_NEAR(shifted(plane(9, 9, corner), "blur:1")[0], edge * edge, 1e-6);
    }

    void noiseHasItsMomentsAndIsSeededByNameAndIndex() {
        const ImageDataset grey = constant(2, 100, 100, 0.5f);
        const std::vector<float> a = shifted(grey, "noise:0.1", "public-a");
        double sum = 0, squares = 0;
        for (float v : a) sum += v;
        const double mean = sum / static_cast<double>(a.size());
        for (float v : a) squares += (v - mean) * (v - mean);
        const double variance = squares / static_cast<double>(a.size() - 1);
        DPMIX_COMPARE_NEAR(mean, 0.5, 0.003);        // standard error 0.1/√20000 ≈ 0.0007
        DPMIX_COMPARE_NEAR(variance, 0.01, 0.0006);  // standard error 0.01·√(2/20000) = 0.0001
        QVERIFY(shifted(grey, "noise:0.1", "public-a") == a);
        const std::vector<float> b = shifted(grey, "noise:0.1", "public-b");
        std::size_t same = 0;
        for (std::size_t k = 0; k < a.size(); ++k) same += a[k] == b[k];
        QVERIFY2(same < a.size() / 50, std::to_string(same).c_str());
        // The two images of one source draw different noise.
        std::size_t sameImages = 0;
        for (std::size_t k = 0; k < 10000; ++k) sameImages += a[k] == a[10000 + k];
        QVERIFY2(sameImages < 200, std::to_string(sameImages).c_str());
    }

    void rotateMovesPixelsAboutTheCentre() {
        const ImageDataset digits = plane(3, 3, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f});
        // Counter-clockwise as shown: the right column becomes the top row.
        compareNear(shifted(digits, "rotate:90"), {0.3, 0.6, 0.9, 0.2, 0.5, 0.8, 0.1, 0.4, 0.7}, 1e-7);
        compareNear(shifted(digits, "rotate:-90"), {0.7, 0.4, 0.1, 0.8, 0.5, 0.2, 0.9, 0.6, 0.3}, 1e-7);
        compareNear(shifted(digits, "rotate:180"), {0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1}, 1e-7);
        QVERIFY(shifted(digits, "rotate:0") == digits.pixels);
        // 45° on a white 5×5: the corner (−2, −2) from the centre reads (0, −2√2), between the row
        // above the image (0) and the top row (1): 1 − (2√2 − 2) = 3 − 2√2; the centre stays white.
        const std::vector<float> turned = shifted(constant(1, 5, 5, 1.0f), "rotate:45");
        DPMIX_COMPARE_NEAR(turned[0], 3 - 2 * std::numbers::sqrt2, 1e-6);
        DPMIX_COMPARE_NEAR(turned[12], 1.0, 1e-6);
    }

    void chainsApplyLeftToRight() {
        compareNear(shifted(plane(1, 1, {0.25f}), "invert+gamma:2"), {0.5625}, 1e-6);    // (1 − 0.25)²
        compareNear(shifted(plane(1, 1, {0.25f}), "gamma:2 + invert"), {0.9375}, 1e-6);  // 1 − 0.25²
        auto steps = parseImageShift("invert+lowres:14+blur:1.0+noise:0.1+rotate:15+gamma:0.5+contrast:0.5");
        QVERIFY2(steps.ok(), steps.ok() ? "" : steps.error().message.c_str());
        QCOMPARE(steps->size(), std::size_t(7));
        QCOMPARE(steps->at(1).kind, ShiftStepKind::LowRes);
        QCOMPARE(steps->at(1).value, 14.0);
        QCOMPARE(steps->at(4).text, "rotate:15"s);
    }

    void badStepsNameTheStep_data() {
        QTest::addColumn<std::string>("shift");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("unknown") << "sharpen"s
                                 << "step 'sharpen' is not a known step"s;
        QTest::newRow("invert with a value") << "invert:1"s
                                             << "step 'invert:1' takes no value"s;
        QTest::newRow("no value") << "blur"s
                                  << "step 'blur' needs a value: expected σ in (0, 10] pixels"s;
        QTest::newRow("not a number") << "blur:wide"s
                                      << "step 'blur:wide' has 'wide', which is not a number"s;
        QTest::newRow("blur 0") << "blur:0"s
                                << "step 'blur:0' is out of range: expected σ in (0, 10] pixels"s;
        QTest::newRow("blur 11") << "blur:11"s
                                 << "step 'blur:11' is out of range"s;
        QTest::newRow("noise 0") << "noise:0"s
                                 << "step 'noise:0' is out of range: expected S in (0, 1]"s;
        QTest::newRow("noise 1.5") << "noise:1.5"s
                                   << "step 'noise:1.5' is out of range"s;
        QTest::newRow("rotate 181") << "rotate:181"s
                                    << "expected degrees in [-180, 180]"s;
        QTest::newRow("gamma 0") << "gamma:0"s
                                 << "step 'gamma:0' is out of range: expected G in (0, 10]"s;
        QTest::newRow("contrast -0.1") << "contrast:-0.1"s
                                       << "expected C in [0, 4]"s;
        QTest::newRow("contrast 5") << "contrast:5"s
                                    << "step 'contrast:5' is out of range"s;
        QTest::newRow("lowres 1") << "lowres:1"s
                                  << "step 'lowres:1' is out of range: expected an integer R >= 2"s;
        QTest::newRow("lowres 2.5") << "lowres:2.5"s
                                    << "step 'lowres:2.5' is out of range"s;
        QTest::newRow("empty step") << "invert++blur:1"s
                                    << "step 2 is empty"s;
        QTest::newRow("empty") << " "s
                               << "no step given"s;
    }
    void badStepsNameTheStep() {
        QFETCH(std::string, shift);
        QFETCH(std::string, expected);
        auto parsed = parseImageShift(shift);
        QVERIFY(!parsed.ok());
        QVERIFY2(mentions(parsed.error().message, expected), parsed.error().message.c_str());
        QVERIFY2(mentions(parsed.error().message, "accepted steps"), parsed.error().message.c_str());
    }

    void lowresLargerThanTheImagesIsRefused() {
        auto steps = parseImageShift("lowres:5");
        QVERIFY(steps.ok());
        auto out = applyImageShift(constant(1, 4, 6, 0.5f), *steps, "src");
        QVERIFY(!out.ok());
        QVERIFY2(mentions(out.error().message, "step 'lowres:5' asks for more than the images' 4x6"),
                 out.error().message.c_str());
    }

    void loadedSourceIsShiftedWithItsLabels() {
        auto plain = loadImageSource(idx("fashion"));
        auto turned = loadImageSource(idx("fashion", {{"shift", "invert+lowres:14"}}));
        QVERIFY2(plain.ok() && turned.ok(), turned.ok() ? "" : turned.error().message.c_str());
        QCOMPARE(turned->size(), std::size_t(3));
        QCOMPARE(turned->height, 28);
        QCOMPARE(turned->width, 28);
        QCOMPARE(turned->labelNames, plain->labelNames);
        QCOMPARE(turned->labels, plain->labels);
        QVERIFY(contentHash(*turned) != contentHash(*plain));
        for (int k = 0; k < 28 * 28; ++k) DPMIX_COMPARE_NEAR(turned->pixels[k], 1.0, 1e-6);  // black, inverted
        auto summary = summarizeSource(idx("fashion", {{"shift", "invert+lowres:14"}}));
        QVERIFY(summary.ok());
        QCOMPARE(summary->contentHash, contentHash(*turned));
    }

    void loadedNoiseIsTheSameDataSetEveryTime() {
        auto first = summarizeSource(idx("noisy", {{"shift", "noise:0.1"}}));
        auto second = summarizeSource(idx("noisy", {{"shift", "noise:0.1"}}));
        auto other = summarizeSource(idx("noisy-2", {{"shift", "noise:0.1"}}));
        QVERIFY2(first.ok() && second.ok() && other.ok(), first.ok() ? "" : first.error().message.c_str());
        QCOMPARE(second->contentHash, first->contentHash);
        QVERIFY(other->contentHash != first->contentHash);
    }

    void loaderErrorsNameSourceAndOption() {
        auto bad = loadImageSource(idx("fashion", {{"shift", "blur:0"}}));
        QVERIFY(!bad.ok());
        QVERIFY2(mentions(bad.error().message,
                          "source 'fashion' (loader idx): option 'shift' = 'blur:0': step "
                          "'blur:0' is out of range"),
                 bad.error().message.c_str());
        auto tooLow = loadImageSource(idx("fashion", {{"shift", "lowres:29"}}));
        QVERIFY(!tooLow.ok());
        QVERIFY2(mentions(tooLow.error().message,
                          "option 'shift' = 'lowres:29': step 'lowres:29' asks for more "
                          "than the images' 28x28"),
                 tooLow.error().message.c_str());
        auto typo = loadImageSource(idx("fashion", {{"shfit", "invert"}}));
        QVERIFY(!typo.ok());
        QVERIFY2(mentions(typo.error().message, "known options: limit, shift, labels"), typo.error().message.c_str());
        // Text loaders have no shift.
        auto text = loadTextSource(SourceSpec{"mail", "jsonl", path("doc.jsonl"), {{"shift", "invert"}}});
        QVERIFY(!text.ok());
        QVERIFY2(mentions(text.error().message, "unknown option 'shift'"), text.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestImageShift)
#include "tst_image_shift.moc"
