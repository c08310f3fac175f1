// Statistical tests (label "statistical") of DP-SGD's vectorised secure Gaussian noise
// (engine/train/detail/secure_noise), drawn from SECRET streams: mean, variance, tail
// frequencies beyond 3σ and 5σ and the hard bound of the float32 and the double sampler, and that
// privatiseGradients adds σC·N(0, I) and divides by the expected batch. Bounds: 6 standard errors
// or Poisson quantiles at 1e-6. The deterministic checks are in tst_secure_noise.
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/secure_noise.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix;
using dpmix::test_support::str;

namespace {
double twoSidedTail(double k) { return 2.0 * boost::math::cdf(boost::math::complement(boost::math::normal(), k)); }
}  // namespace

class TestSecureNoiseStatistical : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void momentsTailsAndBound() {
        // float32 (32-bit uniforms) and double (53-bit), from the secret stream of this machine
        // (AES-256-CTR where the CPU has AES instructions) and from ChaCha20 — each with its bound.
        struct Case {
            at::ScalarType dtype;
            privacy::KeyStreamKind stream;
            double bound;
        };
        const privacy::KeyStreamKind secret = privacy::keyStreamFor(privacy::RandomnessMode::Secret);
        for (const Case& c : {Case{at::kFloat, secret, privacy::kGaussianBoundFloat},
                              Case{at::kDouble, secret, privacy::kGaussianBound},
                              Case{at::kFloat, privacy::KeyStreamKind::ChaCha20, privacy::kGaussianBoundFloat}}) {
            const std::string what =
                str(c.dtype == at::kFloat ? "float32, " : "double, ", privacy::toString(c.stream), ": ");
            const std::int64_t n = 20'000'000;
            privacy::MechanismRng rng(privacy::RandomnessSource::secret(), "noise", c.stream);
            const at::Tensor drawn = train::detail::secureGaussian(rng, {n / 4, 4}, c.dtype).reshape({-1});
            QVERIFY(drawn.scalar_type() == c.dtype);
            const at::Tensor z = drawn.to(at::kDouble);
            QCOMPARE(z.numel(), n);
            const double nd = static_cast<double>(n);
            const double mean = z.mean().item<double>(), var = z.var(/*unbiased=*/false).item<double>();
            QVERIFY2(std::fabs(mean) < 6.0 / std::sqrt(nd), str(what, "mean ", mean).c_str());
            QVERIFY2(std::fabs(var - 1.0) < 6.0 * std::sqrt(2.0 / nd), str(what, "variance ", var).c_str());
            const double largest = z.abs().max().item<double>();
            QVERIFY2(largest <= c.bound, str(what, "largest |z| ", largest, " above the bound ", c.bound).c_str());
            QVERIFY(z.isfinite().all().item<bool>());
            const double p3 = twoSidedTail(3.0);
            const double beyond3 = z.abs().gt(3.0).sum().item<double>();
            QVERIFY2(std::fabs(beyond3 - nd * p3) < 6.0 * std::sqrt(nd * p3 * (1 - p3)),
                     str(what, "|z| > 3: ", beyond3, ", expected ", nd * p3).c_str());
            const boost::math::poisson tail5(nd * twoSidedTail(5.0));
            const double beyond5 = z.abs().gt(5.0).sum().item<double>();
            QVERIFY2(beyond5 >= std::floor(boost::math::quantile(tail5, 1e-6)) &&
                         beyond5 <= std::ceil(boost::math::quantile(boost::math::complement(tail5, 1e-6))),
                     str(what, "|z| > 5: ", beyond5, ", expected about ", nd * twoSidedTail(5.0)).c_str());
        }
    }

    void privatiseAddsScaledNoiseAndDivides() {
        // A zero gradient: what is left is σC·z / denominator, z ~ N(0, 1) per coordinate.
        at::Tensor w = at::zeros({1000, 1000}, at::kFloat);
        w.mutable_grad() = at::zeros_like(w);
        std::vector<at::Tensor*> params{&w};
        privacy::MechanismRng rng(privacy::RandomnessSource::secret(), "noise");
        train::detail::privatiseGradients(params, /*noiseStd=*/3.0, /*sensitivity=*/1.0, /*denominator=*/2.0, rng);
        const at::Tensor g = w.grad().to(at::kDouble);
        const double sd = g.std(/*unbiased=*/false).item<double>(), mean = g.mean().item<double>();
        QVERIFY2(std::fabs(sd / 1.5 - 1.0) < 6.0 * std::sqrt(0.5 / 1e6), str("sd ", sd, ", expected 1.5").c_str());
        QVERIFY(std::fabs(mean) < 6.0 * 1.5 / 1e3);
        // Parameters without a gradient still get noise.
        at::Tensor b = at::zeros({10}, at::kFloat);
        std::vector<at::Tensor*> bare{&b};
        train::detail::privatiseGradients(bare, 1.0, 1.0, 1.0, rng);
        QVERIFY(b.grad().defined() && b.grad().abs().sum().item<double>() > 0);
    }

    void seededNoiseRepeatsSecretNoiseDoesNot() {
        using privacy::RandomnessSource;
        privacy::MechanismRng a(RandomnessSource::seeded(1, "x"), "noise"),
            b(RandomnessSource::seeded(1, "x"), "noise");
        QVERIFY(at::equal(train::detail::secureGaussian(a, {64}, at::kFloat),
                          train::detail::secureGaussian(b, {64}, at::kFloat)));
        privacy::MechanismRng c(RandomnessSource::secret(), "noise"), d(RandomnessSource::secret(), "noise");
        QVERIFY(!at::equal(train::detail::secureGaussian(c, {64}, at::kFloat),
                           train::detail::secureGaussian(d, {64}, at::kFloat)));
    }
};

QTEST_APPLESS_MAIN(TestSecureNoiseStatistical)
#include "tst_secure_noise_statistical.moc"
