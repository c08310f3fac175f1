// The generator behind every DP mechanism's randomness (engine/privacy/mechanism_random):
// seeded streams are reproducible and keyed by (seed, invocation, purpose); secret streams are
// fresh per object; the output grid and the hardened Gaussian's hard bound hold.
#include "engine/privacy/mechanism_random.h"
#include "engine/data/poisson_sampler.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <cstdint>
#include <vector>

using namespace dpmix::privacy;

namespace {

std::vector<std::uint64_t> draws(MechanismRng& rng, int n) {
    std::vector<std::uint64_t> v;
    for (int i = 0; i < n; ++i) v.push_back(rng());
    return v;
}

std::vector<std::uint64_t> draws(const RandomnessSource& s, const char* purpose, int n = 600) {
    MechanismRng rng(s, purpose);
    return draws(rng, n);  // 600 draws cross the 4096-byte buffer refill
}

}  // namespace

class TestMechanismRandom : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void seededStreamsAreReproducible() {
        const auto s = RandomnessSource::seeded(7, "mixture/dp-mixmin/task=t/eps=1/seed=7");
        QCOMPARE(draws(s, "noise"), draws(s, "noise"));
        QVERIFY(!s.isSecret());
    }

    void everyPartOfTheKeyChangesTheStream() {
        const auto base = draws(RandomnessSource::seeded(7, "inv"), "noise");
        QVERIFY(draws(RandomnessSource::seeded(8, "inv"), "noise") != base);
        QVERIFY(draws(RandomnessSource::seeded(7, "inv2"), "noise") != base);
        QVERIFY(draws(RandomnessSource::seeded(7, "inv"), "sampling") != base);
        // Length-prefixed key material: moving a character between the fields is another key.
        QVERIFY(draws(RandomnessSource::seeded(7, "in"), "vnoise") != base);
        QCOMPARE(RandomnessSource::seeded(7, "inv").child("run 3").invocation, std::string("inv/run 3"));
        QVERIFY(draws(RandomnessSource::seeded(7, "inv").child("run 3"), "noise") != base);
    }

    void secretStreamsAreFreshEveryTime() {
        const auto secret = RandomnessSource::secret();
        QVERIFY(secret.isSecret());
        QVERIFY(secret.child("part").isSecret());
        const auto a = draws(secret, "noise"), b = draws(secret, "noise");
        QVERIFY(a != b);
        // No seed reproduces a secret stream (the key is not derived from anything stored).
        QVERIFY(a != draws(RandomnessSource::seeded(0, ""), "noise"));
        QVERIFY(a != draws(RandomnessSource::seeded(0, {}), "noise"));
    }

    void movingHandsOverTheStreamAndWipesTheSource() {
        MechanismRng a(RandomnessSource::seeded(3, "x"), "noise");
        MechanismRng reference(RandomnessSource::seeded(3, "x"), "noise");
        (void)a();
        (void)reference();
        MechanismRng b(std::move(a));
        QCOMPARE(draws(b, 100), draws(reference, 100));
    }

    void uniformsLieOnTheTwoToTheMinus53Grid() {
        MechanismRng rng(RandomnessSource::secret(), "u");
        for (int i = 0; i < 10000; ++i) {
            const double u = rng.uniform01();
            QVERIFY(u >= 0.0 && u < 1.0);
            const double scaled = u * 0x1.0p53;
            QCOMPARE(scaled, std::floor(scaled));
        }
    }

    void bulkUniformsAreTheSameStreamAsSingleDraws() {
        // fillUniform writes whole blocks straight to the output: it must still be the stream
        // draw-by-draw calls give, across buffer boundaries and odd lengths.
        const auto s = RandomnessSource::seeded(5, "bulk");
        MechanismRng bulk(s, "u"), single(s, "u");
        (void)bulk();
        (void)single();
        std::vector<double> a(5003), b(7), c(40000);
        bulk.fillUniform(a, false);
        bulk.fillUniform(b, true);
        bulk.fillUniform(c, false);
        for (double v : a) QCOMPARE(v, single.uniform01());
        for (double v : b) QCOMPARE(v, static_cast<double>((single() >> 11) + 1) * 0x1.0p-53);
        for (double v : c) QCOMPARE(v, single.uniform01());
        QCOMPARE(bulk(), single());
    }

    void gaussianBoundIsTheBoxMullerMaximum() {
        // Independent value: the largest Box–Muller radius from a uniform >= 2^-53, four summed, halved.
        const double radius = std::sqrt(-2.0 * std::log(0x1.0p-53));
        DPMIX_COMPARE_NEAR(kGaussianBound, 2.0 * radius, 1e-12);
        MechanismRng rng(RandomnessSource::secret(), "noise");
        std::vector<double> out(200000);
        rng.fillGaussian(out, 1.0);
        for (double v : out) QVERIFY(std::isfinite(v) && std::fabs(v) <= kGaussianBound);
        std::vector<float> f(1000);
        rng.fillGaussian(f, 3.0);
        for (float v : f) QVERIFY(std::isfinite(v) && std::fabs(v) <= 3.0 * kGaussianBound);
    }

    void gammaRefusesBadShapes() {
        MechanismRng rng(RandomnessSource::secret(), "gamma");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rng.gamma(0.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rng.gamma(-1.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rng.gamma(std::nan("")));
        QVERIFY(rng.gamma(0.01) >= 0.0);
    }

    void drivesThePoissonSampler() {
        MechanismRng rng(RandomnessSource::seeded(1, "s"), "sampling");
        QVERIFY(dpmix::data::poissonSample(100, 0.0, rng).empty());
        QCOMPARE(dpmix::data::poissonSample(100, 1.0, rng).size(), std::size_t(100));
        MechanismRng again(RandomnessSource::seeded(1, "s"), "sampling");
        (void)dpmix::data::poissonSample(100, 0.0, again);
        (void)dpmix::data::poissonSample(100, 1.0, again);
        QCOMPARE(dpmix::data::poissonSample(1000, 0.3, rng), dpmix::data::poissonSample(1000, 0.3, again));
    }

    void modeNamesRoundTrip() {
        for (auto m : {RandomnessMode::Secret, RandomnessMode::Seeded}) {
            RandomnessMode back{};
            QVERIFY(parseRandomnessMode(toString(m), back));
            QVERIFY(back == m);
        }
        RandomnessMode out{};
        QVERIFY(!parseRandomnessMode("random", out));
    }
};

QTEST_APPLESS_MAIN(TestMechanismRandom)
#include "tst_mechanism_random.moc"
