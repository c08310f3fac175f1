// The clip norm C_t and the subspace V_r of a step are functions of θ_t and the public set only:
// replacing or perturbing the private data at the same θ_t leaves them bit-for-bit unchanged,
// while the private release does change (so the test can tell the two apart).
#include "adamix_fixtures.h"
#include "engine/adamix/adamix_step.h"
#include "engine/adamix/params.h"
#include "engine/adamix/public_guidance.h"

#include "tests/support/unit_test.h"

using namespace dpmix::adamix;

namespace {

AdamixParams paramsFor(long long n, long long m) {
    return AdamixParamsBuilder::defaults().sigma(1.0).rank(8).clipQuantile(0.5).build(n, m).value();
}

void compareGuidance(const PublicGuidance& a, const PublicGuidance& b) {
    QCOMPARE(a.clip, b.clip);
    QCOMPARE(a.basis.rows(), b.basis.rows());
    QCOMPARE(a.basis.cols(), b.basis.cols());
    QVERIFY(a.basis == b.basis);  // exactly: same inputs, same arithmetic
    QVERIFY(a.publicGradientSum == b.publicGradientSum);
    QVERIFY(a.basisCoefficients == b.basisCoefficients);
    QVERIFY(a.publicResiduals == b.publicResiduals);
}

}  // namespace

class TestAdamixPublicOnly : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void clipAndSubspaceIgnoreThePrivateData() {
        const int k = 3, p = 8;
        const auto pub = test::labelledBlobs(k, p, 4, 1.0, 11);
        const auto privateA = test::labelledBlobs(k, p, 50, 1.0, 12);
        auto privateB = test::labelledBlobs(k, p, 50, 3.0, 13);  // other points, other spread
        privateB.labels.reverseInPlace();                        // and scrambled labels
        const AdamixParams params = paramsFor(privateA.examples(), pub.examples());

        for (unsigned seed : {21u, 22u, 23u}) {
            const HeadMatrix theta = test::randomHead(k, p + 1, 0.8, seed);
            // What a step computes first, given the same θ_t, with either private set around.
            const PublicGuidance withA = publicGuidance(theta, pub, params);
            const PublicGuidance withB = publicGuidance(theta, pub, params);
            compareGuidance(withA, withB);
            QVERIFY(withA.clip > params.clipFloor);
            QCOMPARE(withA.basis.cols(), Eigen::Index{8});

            // The private releases on the two sets differ: the data did reach the mechanism.
            const auto releaseA = releasePrivateSum(theta, privateA, withA, 0.0, nullptr);
            const auto releaseB = releasePrivateSum(theta, privateB, withB, 0.0, nullptr);
            QVERIFY((releaseA.clippedSum - releaseB.clippedSum).norm() > 1e-6);
            // ... and the guidance is still what it was before the private data were used.
            compareGuidance(publicGuidance(theta, pub, params), withA);
        }
    }

    void theClipIsTheQuantileOfThePublicProjectedNorms() {
        const int k = 4, p = 8;
        const auto pub = test::labelledBlobs(k, p, 5, 1.0, 31);
        const HeadMatrix theta = test::randomHead(k, p + 1, 0.8, 32);
        const AdamixParams params =
            AdamixParamsBuilder::defaults().sigma(1.0).rank(6).clipQuantile(0.75).build(100, pub.examples()).value();
        const PublicGuidance g = publicGuidance(theta, pub, params);
        const RowMatrix grads = perExampleGradients(residuals(theta, pub), pub.augmented);
        const Eigen::VectorXd norms = (grads * g.basis).rowwise().norm();
        QCOMPARE(g.clip, quantile(std::vector<double>(norms.data(), norms.data() + norms.size()), 0.75));

        // The floor c_min applies when the quantile is below it (gradient norms are at most
        // ‖R_i‖·‖φ̃_i‖ <= sqrt(2)·sqrt(2) = 2 on normalised features).
        const AdamixParams floored =
            AdamixParamsBuilder::defaults().sigma(1.0).clipFloor(100.0).build(100, pub.examples()).value();
        QCOMPARE(publicGuidance(theta, pub, floored).clip, 100.0);
    }

    void withoutProjectionTheClipUsesTheFullPublicNorms() {
        const int k = 3, p = 8;
        const auto pub = test::labelledBlobs(k, p, 3, 1.0, 41);
        const HeadMatrix theta = test::randomHead(k, p + 1, 0.8, 42);
        const AdamixParams params = AdamixParamsBuilder::defaults()
                                        .sigma(1.0)
                                        .variant(AdamixVariant::NoProjection)
                                        .build(100, pub.examples())
                                        .value();
        const PublicGuidance g = publicGuidance(theta, pub, params);
        QVERIFY(g.identity);
        const Eigen::VectorXd norms = perExampleGradients(residuals(theta, pub), pub.augmented).rowwise().norm();
        QCOMPARE(g.clip, quantile(std::vector<double>(norms.data(), norms.data() + norms.size()), 0.5));
    }
};

QTEST_APPLESS_MAIN(TestAdamixPublicOnly)
#include "tst_adamix_public_only.moc"
