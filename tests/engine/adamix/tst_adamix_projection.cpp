// The closed-form pieces of an AdaMix-R step against their explicit definitions: the per-example
// gradient matrix row by row (kron(R_i, φ̃_i)), the weighted gradient sum, the unprojected norms,
// and the projection H = G_priv V_r computed without G_priv — through the basis, and through the
// public gradients — against the explicit product.
#include "adamix_fixtures.h"
#include "engine/adamix/adamix_step.h"
#include "engine/adamix/params.h"
#include "engine/adamix/projected_gradients.h"
#include "engine/adamix/public_guidance.h"
#include "engine/adamix/softmax_head.h"

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
        const Eigen::MatrixXd basis =
            topRightSingularVectors(perExampleGradients(residuals(theta, pub), pub.augmented), 12);
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

    void projectionThroughThePublicGradientsEqualsTheExplicitProduct() {
        const int k = 5, p = 8;
        const auto priv = test::labelledBlobs(k, p, 300, 1.0, 14);
        const auto pub = test::labelledBlobs(k, p, 3, 1.0, 15);  // m = 15 < d = 45
        const AdamixParams params =
            AdamixParamsBuilder::defaults().sigma(1.0).rank(10).build(priv.examples(), pub.examples()).value();
        for (unsigned seed : {16u, 17u}) {
            const HeadMatrix theta = test::randomHead(k, p + 1, 0.5, seed);
            const PublicGuidance g = publicGuidance(theta, pub, params);
            QCOMPARE(g.basisCoefficients.rows(), pub.examples());
            QCOMPARE(g.basisCoefficients.cols(), Eigen::Index{10});
            // A is what it claims to be: V_r = G_pubᵀ A.
            const RowMatrix publicGradients = perExampleGradients(residuals(theta, pub), pub.augmented);
            QVERIFY((publicGradients.transpose() * g.basisCoefficients - g.basis).norm() < 1e-10);

            const Eigen::MatrixXd r = residuals(theta, priv);
            const Eigen::MatrixXd crossGram = priv.augmented * pub.augmented.transpose();
            const Eigen::MatrixXd viaPublic =
                projectThroughPublicGradients(r, crossGram, g.publicResiduals, g.basisCoefficients);
            const Eigen::MatrixXd explicitProduct = perExampleGradients(r, priv.augmented) * g.basis;
            const double relative = (viaPublic - explicitProduct).norm() / explicitProduct.norm();
            QVERIFY2(relative < 1e-10, str("relative difference ", relative).c_str());

            // The release of a step is the same by either route (clipped sum and norm ratios).
            const PrivateRelease viaBasis = releasePrivateSum(theta, priv, g, 0.0, nullptr);
            const PrivateRelease viaGram = releasePrivateSum(theta, priv, g, 0.0, nullptr, &crossGram);
            QVERIFY((viaBasis.clippedSum - viaGram.clippedSum).norm() < 1e-10 * viaBasis.clippedSum.norm());
            QVERIFY((viaBasis.normRatios - viaGram.normRatios).cwiseAbs().maxCoeff() < 1e-10);
        }
    }

    void aRankDeficientPublicSetKeepsTheBasisRoute() {
        // Each public example twice: the public gradients have rank m/2, so the rank-m basis holds
        // directions with zero singular value that no combination of public gradients reaches.
        const int k = 3, p = 6;
        auto pub = test::labelledBlobs(k, p, 2, 1.0, 18);
        const Eigen::Index m = pub.examples();
        pub.augmented.conservativeResize(2 * m, Eigen::NoChange);
        pub.augmented.bottomRows(m) = pub.augmented.topRows(m).eval();
        pub.labels.conservativeResize(2 * m);
        pub.labels.tail(m) = pub.labels.head(m).eval();
        const auto priv = test::labelledBlobs(k, p, 40, 1.0, 19);
        const AdamixParams params = AdamixParamsBuilder::defaults()
                                        .sigma(1.0)
                                        .rank(static_cast<int>(2 * m))
                                        .build(priv.examples(), pub.examples())
                                        .value();
        const HeadMatrix theta = test::randomHead(k, p + 1, 0.5, 20);
        const PublicGuidance g = publicGuidance(theta, pub, params);
        QCOMPARE(g.basis.cols(), 2 * m);
        QCOMPARE(g.basisCoefficients.size(), Eigen::Index{0});
        const Eigen::MatrixXd crossGram = priv.augmented * pub.augmented.transpose();
        const PrivateRelease viaBasis = releasePrivateSum(theta, priv, g, 0.0, nullptr);
        const PrivateRelease offered = releasePrivateSum(theta, priv, g, 0.0, nullptr, &crossGram);
        QVERIFY(viaBasis.clippedSum == offered.clippedSum);  // the same arithmetic: the basis route
    }

    void theRouteIsChosenByItsCost() {
        // K = 10, p+1 = 129, r = 64: the basis route costs r·K·(p+1) = 82,560 per example, the
        // public route m·(K + 1 + r) = 75·m: cheaper up to m = 1,100.
        QVERIFY(projectsThroughPublicGradients(60000, 100, 10, 129, 64));
        QVERIFY(projectsThroughPublicGradients(60000, 1100, 10, 129, 64) == false);  // 82,500 < 82,560 but 528 MB
        QVERIFY(projectsThroughPublicGradients(1000, 1100, 10, 129, 64));
        QVERIFY(projectsThroughPublicGradients(1000, 1101, 10, 129, 64) == false);  // 82,575 > 82,560
        // The cross-Gram's memory: 256 MiB is 33,554,432 doubles.
        QVERIFY(projectsThroughPublicGradients(335544, 100, 10, 129, 64));
        QVERIFY(projectsThroughPublicGradients(335545, 100, 10, 129, 64) == false);
        QVERIFY(projectsThroughPublicGradients(1000, 0, 10, 129, 64) == false);
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
