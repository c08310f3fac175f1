// The closed-form pieces of an AdaMix-R step against their explicit definitions: the per-example
// gradient matrix row by row (kron(R_i, φ̃_i)), the weighted gradient sum, the unprojected norms,
// and the projection H = G_priv V_r computed without G_priv against the explicit product.
#include "engine/adamix/projected_gradients.h"
#include "engine/adamix/public_guidance.h"
#include "engine/adamix/softmax_head.h"
#include "adamix_fixtures.h"

#include "tests/support/unit_test.h"

using namespace dpmix::adamix;
using dpmix::test_support::str;

class TestAdamixProjection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void featuresAreNormalisedAndAugmented() {
        const auto data = test::labelledBlobs(3, 8, 5, 0.5, 1);
        QCOMPARE(data.augmentedDim(), Eigen::Index{9});
        for (Eigen::Index i = 0; i < data.examples(); ++i) {
            DPMIX_COMPARE_NEAR(data.augmented.row(i).head(8).norm(), 1.0, 1e-14);
            QCOMPARE(data.augmented(i, 8), 1.0);
        }
    }

    void perExampleGradientsAreKroneckerProducts() {
        const auto data = test::labelledBlobs(4, 6, 3, 0.5, 2);
        const HeadMatrix theta = test::randomHead(4, 7, 0.7, 3);
        const Eigen::MatrixXd r = residuals(theta, data);
        const RowMatrix g = perExampleGradients(r, data.augmented);
        QCOMPARE(g.cols(), Eigen::Index{28});
        for (Eigen::Index i = 0; i < data.examples(); ++i) {
            const HeadMatrix outer = r.row(i).transpose() * data.augmented.row(i);  // K × (p+1)
            QVERIFY((g.row(i).transpose() - flat(outer)).norm() < 1e-15);
            DPMIX_COMPARE_NEAR(r.row(i).sum(), 0.0, 1e-14);  // softmax − one-hot sums to zero
        }
        const HeadMatrix sum = weightedGradientSum(r, data.augmented);
        QVERIFY((flat(sum) - g.colwise().sum().transpose()).norm() < 1e-13);
        Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(data.examples(), 0.1, 1.0);
        const HeadMatrix weighted = weightedGradientSum(r, data.augmented, w);
        QVERIFY((flat(weighted) - (g.transpose() * w)).norm() < 1e-13);
        const Eigen::VectorXd norms = perExampleGradientNorms(r, data.augmented);
        QVERIFY((norms - g.rowwise().norm()).norm() < 1e-13);
    }

    void projectionWithoutTheMatrixEqualsTheExplicitProduct() {
        const int k = 5, p = 8;
        const auto priv = test::labelledBlobs(k, p, 700, 1.0, 4);  // n = 3500 > one row block
        const auto pub = test::labelledBlobs(k, p, 4, 1.0, 5);
        const HeadMatrix theta = test::randomHead(k, p + 1, 0.5, 6);
        const Eigen::MatrixXd basis = topRightSingularVectors(perExampleGradients(residuals(theta, pub), pub.augmented), 12);
        QCOMPARE(basis.cols(), Eigen::Index{12});
        QVERIFY((basis.transpose() * basis - Eigen::MatrixXd::Identity(12, 12)).norm() < 1e-12);

        const Eigen::MatrixXd r = residuals(theta, priv);
        const Eigen::MatrixXd fast = projectPerExampleGradients(r, priv.augmented, basis);
        const Eigen::MatrixXd explicitProduct = perExampleGradients(r, priv.augmented) * basis;
        const double relative = (fast - explicitProduct).norm() / explicitProduct.norm();
        QVERIFY2(relative < 1e-12, str("relative difference ", relative).c_str());
        // And for an arbitrary (non-orthonormal) basis of full width d.
        const Eigen::MatrixXd any = Eigen::MatrixXd::Random(k * (p + 1), k * (p + 1));
        const Eigen::MatrixXd fastAny = projectPerExampleGradients(r, priv.augmented, any);
        const Eigen::MatrixXd explicitAny = perExampleGradients(r, priv.augmented) * any;
        QVERIFY((fastAny - explicitAny).norm() / explicitAny.norm() < 1e-12);
    }

    void rankIsCappedAtTheNumberOfPublicExamples() {
        const auto pub = test::labelledBlobs(3, 8, 2, 1.0, 9);  // m = 6 < d = 27
        const HeadMatrix theta = test::randomHead(3, 9, 0.5, 10);
        QCOMPARE(topRightSingularVectors(perExampleGradients(residuals(theta, pub), pub.augmented), 64).cols(),
                 Eigen::Index{6});
    }

    void quantileInterpolatesBetweenOrderStatistics() {
        QCOMPARE(quantile({3.0, 1.0, 2.0}, 0.5), 2.0);
        QCOMPARE(quantile({4.0, 1.0, 2.0, 3.0}, 0.5), 2.5);
        QCOMPARE(quantile({4.0, 1.0, 2.0, 3.0}, 1.0), 4.0);
        QCOMPARE(quantile({5.0}, 0.3), 5.0);
    }
};

QTEST_APPLESS_MAIN(TestAdamixProjection)
#include "tst_adamix_projection.moc"
