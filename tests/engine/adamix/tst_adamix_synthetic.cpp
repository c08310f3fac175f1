// End to end on a tiny synthetic problem (3 classes, Gaussian blobs, p = 8): with zero noise
// AdaMix-R reaches the non-private head's accuracy within a few points, and every baseline and
// ablation (full batch and Poisson minibatches) runs and accounts for T releases.
#include "adamix_fixtures.h"
#include "engine/adamix/adamix_run.h"
#include "engine/adamix/params.h"
#include "engine/adamix/softmax_head.h"

#include "tests/support/unit_test.h"

using namespace dpmix::adamix;
using dpmix::test_support::str;

namespace {

LabelledFeatures concatenated(const LabelledFeatures& a, const LabelledFeatures& b) {
    LabelledFeatures out;
    out.classes = a.classes;
    out.augmented.resize(a.examples() + b.examples(), a.augmentedDim());
    out.augmented << a.augmented, b.augmented;
    out.labels.resize(a.examples() + b.examples());
    out.labels << a.labels, b.labels;
    return out;
}

struct Problem {
    LabelledFeatures pub = test::labelledBlobs(3, 8, 2, 2.0, 101);  // 2 shots per class
    LabelledFeatures priv = test::labelledBlobs(3, 8, 150, 2.0, 102);
    LabelledFeatures testSet = test::labelledBlobs(3, 8, 300, 2.0, 103);
};

}  // namespace

class TestAdamixSynthetic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void zeroNoiseReachesTheNonPrivateAccuracy() {
        const Problem d;
        const HeadFit paragon = fitHead(concatenated(d.pub, d.priv), 1e-4);
        QVERIFY(paragon.converged);
        const double paragonAccuracy = accuracy(paragon.theta, d.testSet);
        const AdamixParams p = AdamixParamsBuilder::defaults()
                                   .steps(300)
                                   .stepSize(2.0)
                                   .epsilon(1.0)
                                   .noise(NoiseMode::None)
                                   .build(d.priv.examples(), d.pub.examples())
                                   .value();
        const AdamixResult r = runAdamix(d.pub, d.priv, p).value();
        const double adamixAccuracy = accuracy(r.theta, d.testSet);
        const double publicOnly = accuracy(r.theta0, d.testSet);
        QVERIFY2(adamixAccuracy >= paragonAccuracy - 0.03,
                 str("AdaMix-R ", adamixAccuracy, ", paragon ", paragonAccuracy, ", public only ", publicOnly).c_str());
        QVERIFY(r.publicFit.converged);
        QCOMPARE(r.subspaceRanks.front(), 6);  // r = min(m, 64) = 6
    }

    void everyVariantRunsAndAccountsForItsReleases() {
        const Problem d;
        for (auto v : {AdamixVariant::AdamixR, AdamixVariant::NoProjection, AdamixVariant::FixedClip,
                       AdamixVariant::NoPublicGradient, AdamixVariant::DpGdFromZero, AdamixVariant::DpGdWarmStart})
            for (double q : {1.0, 0.2}) {
                AdamixParamsBuilder b =
                    AdamixParamsBuilder::defaults().steps(40).epsilon(8.0).samplingRate(q).variant(v).reproducible(
                        3, toString(v));
                if (v == AdamixVariant::FixedClip || v == AdamixVariant::DpGdFromZero ||
                    v == AdamixVariant::DpGdWarmStart)
                    b.fixedClip(0.5);
                const AdamixParams p = b.build(d.priv.examples(), d.pub.examples()).value();
                dpmix::privacy::Ledger ledger;
                const auto r = runAdamix(d.pub, d.priv, p, &ledger);
                QVERIFY2(r.ok(), (std::string(toString(v)) + ": " + (r.ok() ? "" : r.error().message)).c_str());
                QCOMPARE(r->mechanismInvocations, 40LL);
                QCOMPARE(ledger.entries().size(), std::size_t{1});
                QCOMPARE(ledger.entries().front().q, q);
                QCOMPARE(r->normRatioSums.size(), q == 1.0 ? d.priv.examples() : Eigen::Index{0});
                QVERIFY(r->theta.allFinite());
                QVERIFY2(accuracy(r->theta, d.testSet) > 0.5,
                         str(toString(v), " q ", q, " accuracy ", accuracy(r->theta, d.testSet)).c_str());
                if (p.init == Initialisation::Zero) QVERIFY(r->theta0.isZero());
            }
    }

    void mismatchedDataAreAnError() {
        const Problem d;
        const AdamixParams p = AdamixParamsBuilder::defaults().epsilon(1.0).build(10, d.pub.examples()).value();
        QVERIFY(!runAdamix(d.pub, d.priv, p).ok());  // built for n = 10
        const auto other = test::labelledBlobs(4, 8, 10, 1.0, 5);
        const AdamixParams q =
            AdamixParamsBuilder::defaults().epsilon(1.0).build(other.examples(), d.pub.examples()).value();
        QVERIFY(!runAdamix(d.pub, other, q).ok());  // K = 3 public, 4 private
    }
};

QTEST_APPLESS_MAIN(TestAdamixSynthetic)
#include "tst_adamix_synthetic.moc"
