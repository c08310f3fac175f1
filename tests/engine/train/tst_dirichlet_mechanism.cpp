// Monte-Carlo checks of the Dirichlet-mechanism loss against Theorem 11 (docs/ALGORITHMS.md C.3):
//   E[L] = ψ(r + dα) − ψ(r s_y + α),  Var[L] = ψ′(r s_y + α) − ψ′(r + dα),
//   E[∂L/∂z] = κ (s − e_y),  κ = r s_y ψ′(r s_y + α).
// Closed forms evaluated with Boost.Math; several seeds, 5-standard-error tolerances.
#include "engine/train/detail/dirichlet_loss.h"

#include <ATen/CPUGeneratorImpl.h>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::train::detail;
using boost::math::digamma;
using boost::math::trigamma;
using dpmix::test_support::str;

class TestDirichletMechanism : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theorem11MomentsAndGradient_data() {
        QTest::addColumn<double>("r");
        QTest::addColumn<double>("alpha");
        QTest::addColumn<int>("label");
        QTest::newRow("paper check r=0.2349 a=3") << 0.2349 << 3.0 << 2;
        QTest::newRow("large r=2.5 a=3") << 2.5 << 3.0 << 7;
        QTest::newRow("small alpha r=0.3 a=0.5") << 0.3 << 0.5 << 0;
    }

    void theorem11MomentsAndGradient() {
        QFETCH(double, r);
        QFETCH(double, alpha);
        QFETCH(int, label);
        const int d = 10;
        const int64_t n = 100000;
        at::Generator init = at::make_generator<at::CPUGeneratorImpl>(99);
        at::Tensor z0 = at::randn({d}, init, at::TensorOptions().dtype(at::kDouble)) * 1.5;
        at::Tensor s = at::softmax(z0, 0);
        const double sy = s[label].item<double>();
        const double expectedMean = digamma(r + d * alpha) - digamma(r * sy + alpha);
        const double expectedVar = trigamma(r * sy + alpha) - trigamma(r + d * alpha);
        const double kappa = r * sy * trigamma(r * sy + alpha);
        at::Tensor ey = at::zeros({d}, at::TensorOptions().dtype(at::kDouble));
        ey[label] = 1.0;
        at::Tensor expectedGrad = kappa * (s - ey);

        for (uint64_t seed = 1; seed <= 4; ++seed) {
            dpmix::privacy::MechanismRng gen(dpmix::privacy::RandomnessSource::seeded(seed), "gamma draws");
            at::Tensor z = z0.unsqueeze(0).repeat({n, 1}).set_requires_grad(true);
            at::Tensor y = at::full({n}, label, at::TensorOptions().dtype(at::kLong));
            at::Tensor loss = dirichletLossPerExample(z, y, r, alpha, gen);
            loss.sum().backward();
            at::Tensor l = loss.detach();
            const double mean = l.mean().item<double>();
            const double var = l.var().item<double>();
            const double m4 = (l - mean).pow(4).mean().item<double>();
            const double seMean = std::sqrt(var / n), seVar = std::sqrt((m4 - var * var) / n);
            QVERIFY2(std::abs(mean - expectedMean) < 5 * seMean,
                     str("E[L] ", mean, " vs ", expectedMean, " (se ", seMean, ")").c_str());
            QVERIFY2(std::abs(var - expectedVar) < 5 * seVar,
                     str("Var ", var, " vs ", expectedVar, " (se ", seVar, ")").c_str());
            at::Tensor g = z.grad();  // row b: ∂L_b/∂z_b (the rows are independent)
            at::Tensor gMean = g.mean(0), gSe = (g.var(0) / n).sqrt();
            QVERIFY(g.abs().max().item<double>() > 0);  // the gradient flows through the sample
            for (int j = 0; j < d; ++j)
                QVERIFY2(
                    std::abs(gMean[j].item<double>() - expectedGrad[j].item<double>()) <
                        5 * gSe[j].item<double>() + 1e-12,
                    str("grad[", j, "] ", gMean[j].item<double>(), " vs ", expectedGrad[j].item<double>()).c_str());
        }
    }

    void singleLogitBecomesTwoClasses() {
        at::Tensor z = at::tensor({0.7, -1.2}, at::kDouble).reshape({2, 1});
        at::Tensor two = asTwoClassLogits(z);
        at::Tensor p = at::softmax(two, 1);
        DPMIX_COMPARE_NEAR(p[0][1].item<double>(), 1.0 / (1.0 + std::exp(-0.7)), 1e-12);
        DPMIX_COMPARE_NEAR(p[1][1].item<double>(), 1.0 / (1.0 + std::exp(1.2)), 1e-12);
    }
};

QTEST_APPLESS_MAIN(TestDirichletMechanism)
#include "tst_dirichlet_mechanism.moc"
