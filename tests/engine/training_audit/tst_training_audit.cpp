// The training audit on generated 3×3 images (pixel 5 always dark, label by brightness): the
// claimed ε reaches the audited mechanism (its r or σ is the accountant's calibration for the
// audit's q and T, computed here independently), the non-private control finds the unused-pixel
// canary, results do not depend on the thread count, and bad options are refused by name.
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/train/model.h"
#include "engine/training_audit/training_audit.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <limits>
#include <random>

using namespace dpmix;
using namespace dpmix::training_audit;

namespace {

constexpr int kImages = 80;

struct Fixture {
    std::vector<float> pixels;
    std::vector<int> labels;
    TrainingAuditData data() const {
        TrainingAuditData d;
        d.images = {pixels, kImages, 1, 3, 3};
        d.labels = labels;
        d.canary = gradientAlignedCanary(d.images, 1).value();  // the public images are D here
        return d;
    }
};

Fixture makeFixture() {
    Fixture f;
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < kImages; ++i) {
        double sum = 0.0;
        for (int j = 0; j < 9; ++j) {
            const float v = j == 5 ? 0.0f : u(rng);
            f.pixels.push_back(v);
            sum += v;
        }
        f.labels.push_back(sum > 4.0 ? 1 : 0);
    }
    return f;
}

TrainingAuditOptions quick(AuditedMechanism m) {
    TrainingAuditOptions o;
    o.mechanism = m;
    o.epsilon = 2.0;
    o.runsPerWorld = 40;
    o.steps = 30;
    o.expectedBatchSize = 20;  // q = 1/4
    o.threads = 1;
    return o;
}

}  // namespace

class TestTrainingAudit : public QObject {
    Q_OBJECT
    Fixture f_ = makeFixture();

private Q_SLOTS:
    void initTestCase() { train::setTorchThreads(1); }

    void theClaimedEpsilonReachesTheMechanism() {
        auto dirichlet = quick(AuditedMechanism::Dirichlet);
        dirichlet.runsPerWorld = 2;
        const auto d = runTrainingAudit(f_.data(), dirichlet).value();
        const double r = privacy::calibrateDirichletR(2.0, 1e-5, 3.0, 0.25, 30).value().r;
        QCOMPARE(d.noise, r);
        DPMIX_COMPARE_NEAR(d.q, 0.25, 1e-15);
        QCOMPARE(d.claimedEpsilon, 2.0);

        auto dpSgd = quick(AuditedMechanism::DpSgd);
        dpSgd.runsPerWorld = 2;
        const auto g = runTrainingAudit(f_.data(), dpSgd).value();
        QCOMPARE(g.noise, privacy::calibrateGaussianSigma(2.0, 1e-5, 0.25, 30).value().sigma);

        auto sgd = quick(AuditedMechanism::Sgd);
        sgd.runsPerWorld = 2;
        const auto s = runTrainingAudit(f_.data(), sgd).value();
        QCOMPARE(s.noise, 0.0);
        QVERIFY(std::isinf(s.claimedEpsilon));
    }

    void theNonPrivateControlSeesTheCanary() {
        // Only the canary ever lights pixel 5: without noise its weight moves in every "in" run
        // that sampled it (P(never in 30 steps) = 0.75^30 ≈ 2e-4) and never in an "out" run.
        // Ten times the mean norm makes the shift of its logit (∝ norm²) dwarf the bias's spread.
        auto o = quick(AuditedMechanism::Sgd);
        o.keepScores = true;
        auto data = f_.data();
        for (float& v : data.canary.pixels) v *= 10.0f;
        const auto r = runTrainingAudit(data, o).value();
        const double gap = r.scoreMeanOut - r.scoreMeanIn;
        const std::string spread = test_support::str("in ", r.scoreMeanIn, " ± ", r.scoreStdIn, ", out ",
                                                     r.scoreMeanOut, " ± ", r.scoreStdOut);
        QVERIFY2(gap > 5.0 * (r.scoreStdIn + r.scoreStdOut), spread.c_str());
        QVERIFY(r.falsePositives + r.falseNegatives <= 1);  // a run that never sampled the canary may err
        QVERIFY(r.epsilonLB > 1.0);
        QCOMPARE(r.direction, audit::AttackDirection::LowerIsIn);  // a trained-on canary has the lower loss
    }

    void resultsDoNotDependOnTheThreadCount() {
        auto o = quick(AuditedMechanism::Dirichlet);
        o.runsPerWorld = 6;
        o.keepScores = true;
        const auto one = runTrainingAudit(f_.data(), o).value();
        o.threads = 2;
        const auto two = runTrainingAudit(f_.data(), o).value();
        QCOMPARE(one.scoresIn, two.scoresIn);
        QCOMPARE(one.scoresOut, two.scoresOut);
        o.seed = 1;  // and the seed does matter
        QVERIFY(runTrainingAudit(f_.data(), o).value().scoresIn != one.scoresIn);
    }

    void badOptionsAreRefusedByName() {
        auto o = quick(AuditedMechanism::Dirichlet);
        o.runsPerWorld = 1;
        QCOMPARE(runTrainingAudit(f_.data(), o).error().field, std::string("runs"));
        o = quick(AuditedMechanism::Dirichlet);
        o.expectedBatchSize = kImages + 1;
        QCOMPARE(runTrainingAudit(f_.data(), o).error().field, std::string("batch"));
        o = quick(AuditedMechanism::DpSgd);
        o.epsilon = std::numeric_limits<double>::infinity();
        QCOMPARE(runTrainingAudit(f_.data(), o).error().field, std::string("epsilon"));
        auto data = f_.data();
        data.canary.pixels.pop_back();
        QVERIFY(runTrainingAudit(data, quick(AuditedMechanism::Sgd)).error().message.find("canary") !=
                std::string::npos);
        std::vector<int> three = f_.labels;
        three[0] = 3;
        data = f_.data();
        data.labels = three;
        QVERIFY(runTrainingAudit(data, quick(AuditedMechanism::Sgd)).error().message.find("binary") !=
                std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestTrainingAudit)
#include "tst_training_audit.moc"
