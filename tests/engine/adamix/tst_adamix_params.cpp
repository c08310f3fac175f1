// The AdaMix-R builder: defaults, the named variants' options, and errors that name the field.
#include "engine/adamix/labelled_features.h"
#include "engine/adamix/params.h"

#include "tests/support/unit_test.h"

#include <functional>

using namespace dpmix::adamix;
using dpmix::test_support::str;

namespace {

// Expects `build` to fail with an error whose field is `field` and whose message begins with it.
void expectFieldError(const dpmix::Result<AdamixParams>& r, const std::string& field) {
    QVERIFY2(!r.ok(), ("expected an error about " + field).c_str());
    QCOMPARE(r.error().field, field);
    QVERIFY2(r.error().message.rfind(field, 0) == 0, r.error().message.c_str());
}

AdamixParamsBuilder valid() { return AdamixParamsBuilder::defaults().epsilon(1.0); }

}  // namespace

class TestAdamixParams : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsAreTheDocumentedOnes() {
        const AdamixParams p = valid().build(500, 30).value();
        QCOMPARE(p.steps, 200LL);
        QCOMPARE(p.stepSize, 1.0);
        QCOMPARE(p.delta, 1e-5);
        QCOMPARE(p.q, 1.0);
        QCOMPARE(p.rank, 30);  // min(m, 64)
        QCOMPARE(valid().build(500, 100).value().rank, 64);
        QCOMPARE(p.clipQuantile, 0.5);
        QCOMPARE(p.ridge, 1e-4);
        QCOMPARE(p.publicRidge, 1e-3);
        QCOMPARE(p.clipFloor, 1e-6);
        QVERIFY(p.projection == Projection::PublicSubspace && p.clip == ClipRule::PublicQuantile);
        QVERIFY(p.publicGradientTerm && p.init == Initialisation::PublicFewShot);
        QVERIFY(p.randomness.isSecret());  // secret unless asked
        QVERIFY(p.sigma > 0.0 && p.epsilon <= 1.0);
    }

    void variantsSetTheirOptions() {
        const auto dpgd = valid().variant(AdamixVariant::DpGdFromZero).fixedClip(1.0).build(500, 0).value();
        QVERIFY(dpgd.projection == Projection::None && dpgd.clip == ClipRule::Fixed);
        QVERIFY(!dpgd.publicGradientTerm && dpgd.init == Initialisation::Zero && !dpgd.usesPublicData());
        const auto warm = valid().variant(AdamixVariant::DpGdWarmStart).fixedClip(1.0).build(500, 10).value();
        QVERIFY(warm.init == Initialisation::PublicFewShot && warm.projection == Projection::None);
        QVERIFY(valid().variant(AdamixVariant::NoProjection).build(500, 10).value().projection == Projection::None);
        QVERIFY(!valid().variant(AdamixVariant::NoPublicGradient).build(500, 10).value().publicGradientTerm);
        QCOMPARE(valid().variant(AdamixVariant::FixedClip).fixedClip(0.3).build(500, 10).value().fixedClip, 0.3);
        QCOMPARE(std::string(toString(AdamixVariant::AdamixR)), std::string("adamix-r"));
        // Poisson minibatches.
        QCOMPARE(valid().samplingRate(0.1).build(500, 10).value().q, 0.1);
    }

    void badParametersNameTheField() {
        expectFieldError(valid().steps(0).build(500, 10), "steps");
        expectFieldError(valid().stepSize(-1).build(500, 10), "eta");
        expectFieldError(AdamixParamsBuilder::defaults().epsilon(0.0).build(500, 10), "epsilon");
        expectFieldError(AdamixParamsBuilder::defaults().epsilon(-2.0).build(500, 10), "epsilon");
        expectFieldError(AdamixParamsBuilder::defaults().sigma(0.0).build(500, 10), "sigma");
        expectFieldError(AdamixParamsBuilder::defaults().epsilon(1).sigma(1).build(500, 10), "epsilon");
        expectFieldError(valid().delta(1.5).build(500, 10), "delta");
        expectFieldError(valid().samplingRate(0.0).build(500, 10), "q");
        expectFieldError(valid().samplingRate(1.5).build(500, 10), "q");
        expectFieldError(valid().rank(0).build(500, 10), "rank");
        expectFieldError(valid().clipQuantile(0.0).build(500, 10), "clip-quantile");
        expectFieldError(valid().clipQuantile(1.2).build(500, 10), "clip-quantile");
        expectFieldError(valid().clipFloor(0.0).build(500, 10), "clip-floor");
        expectFieldError(valid().ridge(-1e-3).build(500, 10), "ridge");
        expectFieldError(valid().publicRidge(0.0).build(500, 10), "public-ridge");
        expectFieldError(valid().clipRule(ClipRule::Fixed).build(500, 10), "clip");
        expectFieldError(valid().fixedClip(-1.0).build(500, 10), "clip");
        expectFieldError(valid().build(500, 0), "public-examples");  // AdaMix-R needs public data
        expectFieldError(valid().build(0, 10), "private-examples");
        expectFieldError(valid().split("").build(500, 10), "split");
        expectFieldError(AdamixParamsBuilder::defaults().build(500, 10), "epsilon");  // neither epsilon nor sigma
        expectFieldError(AdamixParamsBuilder::defaults().epsilon(1e-4).steps(200).build(500, 10),
                         "epsilon");  // unreachable
    }

    void badDataNameTheField() {
        Eigen::MatrixXd features = Eigen::MatrixXd::Ones(3, 4);
        Eigen::VectorXi labels(3);
        labels << 0, 1, 5;
        auto r = makeLabelledFeatures(features, labels, 3, "private");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().field, std::string("private-labels"));
        QCOMPARE(makeLabelledFeatures(features, labels.head(2), 3, "public").error().field,
                 std::string("public-labels"));
        QCOMPARE(makeLabelledFeatures(features, labels, 1, "public").error().field, std::string("classes"));
    }
};

QTEST_APPLESS_MAIN(TestAdamixParams)
#include "tst_adamix_params.moc"
