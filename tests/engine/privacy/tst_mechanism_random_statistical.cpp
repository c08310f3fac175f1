// Statistical tests (label "statistical") of the hardened Gaussian sampler and the Gamma sampler
// of engine/privacy/mechanism_random, drawn from the SECRET stream the mechanisms use. Bounds
// are set so that a correct sampler fails a check with probability below ~1e-6 (6 standard
// errors, or Poisson tail quantiles computed with Boost), so no seed is tuned.
#include "engine/privacy/mechanism_random.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>

#include "tests/support/unit_test.h"

#include <cmath>
#include <vector>

using namespace dpmix::privacy;
using dpmix::test_support::str;

namespace {

// P(|Z| > k) for a standard normal, independently of the code under test.
double twoSidedTail(double k) { return 2.0 * boost::math::cdf(boost::math::complement(boost::math::normal(), k)); }

}  // namespace

class TestMechanismRandomStatistical : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gaussianMomentsAndTails() {
        const std::size_t n = 20'000'000;
        MechanismRng rng(RandomnessSource::secret(), "noise");
        std::vector<double> z(n);
        rng.fillGaussian(z, 1.0);
        double sum = 0.0, sumSq = 0.0;
        std::size_t beyond3 = 0, beyond5 = 0;
        for (double v : z) {
            QVERIFY(std::fabs(v) <= kGaussianBound);
            sum += v;
            sumSq += v * v;
            beyond3 += std::fabs(v) > 3.0;
            beyond5 += std::fabs(v) > 5.0;
        }
        const double nd = static_cast<double>(n);
        const double mean = sum / nd, var = sumSq / nd - mean * mean;
        QVERIFY2(std::fabs(mean) < 6.0 / std::sqrt(nd), str("mean ", mean).c_str());
        QVERIFY2(std::fabs(var - 1.0) < 6.0 * std::sqrt(2.0 / nd), str("variance ", var).c_str());

        const double p3 = twoSidedTail(3.0);  // 0.0026998
        const double expected3 = nd * p3, sd3 = std::sqrt(nd * p3 * (1 - p3));
        QVERIFY2(std::fabs(static_cast<double>(beyond3) - expected3) < 6.0 * sd3,
                 str("|z| > 3: ", beyond3, ", expected ", expected3, " ± ", sd3).c_str());

        // |z| > 5 is rare (p = 5.7e-7, about 11.5 of 2e7): Poisson bounds at 1e-6 in each tail.
        const boost::math::poisson tail5(nd * twoSidedTail(5.0));
        const double lo = boost::math::quantile(tail5, 1e-6),
                     hi = boost::math::quantile(boost::math::complement(tail5, 1e-6));
        QVERIFY2(static_cast<double>(beyond5) >= std::floor(lo) && static_cast<double>(beyond5) <= std::ceil(hi),
                 str("|z| > 5: ", beyond5, ", expected in [", lo, ", ", hi, "]").c_str());
    }

    void scaledGaussianHasTheRequestedSpread() {
        const std::size_t n = 2'000'000;
        MechanismRng rng(RandomnessSource::secret(), "noise");
        std::vector<float> z(n);
        rng.fillGaussian(z, 2.5);
        double sumSq = 0.0;
        for (float v : z) sumSq += static_cast<double>(v) * v;
        const double var = sumSq / static_cast<double>(n);
        QVERIFY2(std::fabs(var / 6.25 - 1.0) < 6.0 * std::sqrt(2.0 / static_cast<double>(n)),
                 str("variance ", var, ", expected 6.25").c_str());
    }

    void gammaMeanAndVarianceEqualTheShape() {
        for (double shape : {0.3, 1.0, 3.7, 40.0}) {
            const std::size_t n = 1'000'000;
            MechanismRng rng(RandomnessSource::secret(), "gamma");
            double sum = 0.0, sumSq = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                const double g = rng.gamma(shape);
                QVERIFY(g >= 0.0 && std::isfinite(g));
                sum += g;
                sumSq += g * g;
            }
            const double nd = static_cast<double>(n), mean = sum / nd, var = sumSq / nd - mean * mean;
            // Gamma(k): mean k, variance k, fourth central moment 3k² + 6k.
            const double seMean = std::sqrt(shape / nd);
            const double seVar = std::sqrt((3 * shape * shape + 6 * shape - shape * shape) / nd);
            QVERIFY2(std::fabs(mean - shape) < 6 * seMean, str("shape ", shape, ": mean ", mean).c_str());
            QVERIFY2(std::fabs(var - shape) < 6 * seVar, str("shape ", shape, ": variance ", var).c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestMechanismRandomStatistical)
#include "tst_mechanism_random_statistical.moc"
