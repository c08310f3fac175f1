// The canaries of the training audit, against values derived by hand: the flipped label, the
// exact norm of the large-norm pattern, and the least-occupied direction of a public set whose
// pixel 5 is always dark (its second moment has eigenvalue 0 exactly along e_5).
#include "engine/training_audit/training_canary.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <random>

using namespace dpmix;
using namespace dpmix::training_audit;

namespace {

double norm(const std::vector<float>& v) {
    double s = 0.0;
    for (float x : v) s += double(x) * x;
    return std::sqrt(s);
}

/// n images of 1×3×3 pixels in [0.2, 1], with pixel `dark` always 0.
std::vector<float> imagesWithDarkPixel(int n, int dark, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(0.2f, 1.0f);
    std::vector<float> px;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 9; ++j) px.push_back(j == dark ? 0.0f : u(rng));
    return px;
}

}  // namespace

class TestTrainingCanary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void namesRoundTrip() {
        for (auto k :
             {TrainingCanaryKind::FlippedLabel, TrainingCanaryKind::LargeNorm, TrainingCanaryKind::GradientAligned}) {
            TrainingCanaryKind parsed{};
            QVERIFY(parseTrainingCanaryKind(toString(k), parsed));
            QCOMPARE(parsed, k);
        }
        TrainingCanaryKind unused{};
        QVERIFY(!parseTrainingCanaryKind("natural", unused));
    }

    void theFlippedLabelCanaryKeepsTheImage() {
        const std::vector<float> image{0.1f, 0.5f, 0.9f, 0.3f};
        const auto c = flippedLabelCanary(image, 1);
        QCOMPARE(c.label, 0);
        QCOMPARE(c.pixels, image);
        QCOMPARE(flippedLabelCanary(image, 0).label, 1);
    }

    void theLargeNormCanaryHasTheAskedNorm() {
        // Two images of norms 3 and 5 (a 3-4-5 triangle and one pixel of 3): mean 4, ×10 → 40.
        const std::vector<float> px{3, 4, 0, 0, 3, 0, 0, 0};
        const train::ImageView view{px, 2, 1, 2, 2};
        const auto c = largeNormCanary(view, 10.0, 1).value();
        DPMIX_COMPARE_NEAR(norm(c.pixels), 40.0, 1e-4);
        QCOMPARE(c.label, 1);
        // A checkerboard: neighbours have opposite signs, every pixel the same magnitude 40/2.
        QCOMPARE(c.pixels[0], 20.0f);
        QCOMPARE(c.pixels[1], -20.0f);
        QCOMPARE(c.pixels[2], -20.0f);
        QCOMPARE(c.pixels[3], 20.0f);
        QVERIFY(!largeNormCanary(view, 0.0, 1));
        const std::vector<float> blank(8, 0.0f);
        QVERIFY(!largeNormCanary({blank, 2, 1, 2, 2}, 10.0, 1));
    }

    void theGradientAlignedCanaryPointsWhereNoPublicImageDoes() {
        const auto px = imagesWithDarkPixel(400, 5, 7);
        const train::ImageView view{px, 400, 1, 3, 3};
        const auto c = gradientAlignedCanary(view, 0).value();
        // All of its norm on pixel 5, and that norm is the public images' mean norm.
        double mean = 0.0;
        for (int i = 0; i < 400; ++i) mean += norm(std::vector<float>(px.begin() + i * 9, px.begin() + (i + 1) * 9));
        mean /= 400;
        DPMIX_COMPARE_NEAR(std::abs(c.pixels[5]), mean, 1e-3 * mean);
        for (int j = 0; j < 9; ++j)
            if (j != 5)
                QVERIFY2(std::abs(c.pixels[j]) < 1e-3, test_support::str("pixel ", j, ": ", c.pixels[j]).c_str());
        QCOMPARE(c.label, 0);
    }
};

QTEST_APPLESS_MAIN(TestTrainingCanary)
#include "tst_training_canary.moc"
