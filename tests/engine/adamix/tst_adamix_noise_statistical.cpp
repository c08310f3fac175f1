// The Gaussian mechanism of a step adds N(0, σ²C_t² I_r) to the clipped sum in the r-dimensional
// subspace: over many seeded draws, Σ ((s_t − Σĥ)/(σC_t))² is chi-square with (draws · r) degrees
// of freedom.
#include "adamix_fixtures.h"
#include "engine/adamix/adamix_step.h"
#include "engine/adamix/params.h"
#include "engine/adamix/public_guidance.h"
#include "engine/privacy/mechanism_random.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::adamix;
using dpmix::test_support::str;
namespace privacy = dpmix::privacy;

class TestAdamixNoiseStatistical : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noiseVarianceIsSigmaTimesClipSquared() {
        const int k = 3, p = 8;
        const auto pub = test::labelledBlobs(k, p, 4, 1.0, 51);
        const auto priv = test::labelledBlobs(k, p, 30, 1.0, 52);
        const double sigma = 1.7;
        const AdamixParams params =
            AdamixParamsBuilder::defaults().sigma(sigma).rank(10).build(priv.examples(), pub.examples()).value();
        const HeadMatrix theta = test::randomHead(k, p + 1, 0.5, 53);
        const PublicGuidance g = publicGuidance(theta, pub, params);
        const Eigen::Index r = g.basis.cols();
        QCOMPARE(r, Eigen::Index{10});

        privacy::MechanismRng rng(privacy::RandomnessSource::seeded(20261202, "adamix-noise-test"), "noise");
        const int draws = 4000;
        double chiSquare = 0.0, sum = 0.0;
        for (int d = 0; d < draws; ++d) {
            const PrivateRelease rel = releasePrivateSum(theta, priv, g, sigma * g.clip, &rng);
            QCOMPARE(rel.noisySum.size(), r);  // the noise lives in the r-dimensional subspace
            const Eigen::VectorXd xi = (rel.noisySum - rel.clippedSum) / (sigma * g.clip);
            chiSquare += xi.squaredNorm();
            sum += xi.sum();
        }
        // Σ ξ² ~ χ²(ν), ν = draws·r = 40000: mean ν, sd sqrt(2ν) ≈ 283. The acceptance band is
        // ν ± 6 sd; by the normal approximation (accurate at this ν) a correct sampler fails it
        // with probability about 2e-9, while a variance off by 5% moves the statistic by 2000 ≈ 7 sd.
        const double nu = static_cast<double>(draws) * static_cast<double>(r);
        const double sd = std::sqrt(2.0 * nu);
        QVERIFY2(std::abs(chiSquare - nu) < 6.0 * sd, str("chi-square ", chiSquare, ", df ", nu, ", sd ", sd).c_str());
        // The mean is zero: Σξ ~ N(0, ν), band ±6 sqrt(ν) (failure probability about 2e-9).
        QVERIFY2(std::abs(sum) < 6.0 * std::sqrt(nu), str("sum of noise ", sum).c_str());
    }

    void withoutProjectionTheNoiseIsFullDimensional() {
        const int k = 3, p = 8;
        const auto pub = test::labelledBlobs(k, p, 4, 1.0, 61);
        const auto priv = test::labelledBlobs(k, p, 10, 1.0, 62);
        const AdamixParams params = AdamixParamsBuilder::defaults()
                                        .sigma(2.0)
                                        .variant(AdamixVariant::DpGdFromZero)
                                        .fixedClip(0.5)
                                        .build(priv.examples(), pub.examples())
                                        .value();
        const HeadMatrix theta = test::randomHead(k, p + 1, 0.5, 63);
        const PublicGuidance g = publicGuidance(theta, pub, params);
        QCOMPARE(g.clip, 0.5);
        privacy::MechanismRng rng(privacy::RandomnessSource::seeded(7, "adamix-noise-test-2"), "noise");
        const int draws = 2000;
        double chiSquare = 0.0;
        for (int d = 0; d < draws; ++d) {
            const PrivateRelease rel = releasePrivateSum(theta, priv, g, 2.0 * g.clip, &rng);
            QCOMPARE(rel.noisySum.size(), Eigen::Index{k * (p + 1)});
            chiSquare += ((rel.noisySum - rel.clippedSum) / (2.0 * g.clip)).squaredNorm();
        }
        // ν = 54000, band ±6 sd as above (failure probability about 2e-9).
        const double nu = draws * 27.0;
        QVERIFY2(std::abs(chiSquare - nu) < 6.0 * std::sqrt(2.0 * nu),
                 str("chi-square ", chiSquare, ", df ", nu).c_str());
    }
};

QTEST_APPLESS_MAIN(TestAdamixNoiseStatistical)
#include "tst_adamix_noise_statistical.moc"
