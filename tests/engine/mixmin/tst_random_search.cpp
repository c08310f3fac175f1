// Random Search baseline: uniform candidate included, best-of-m selection against a
// brute-force optimum, and its non-private ledger entry.
#include "engine/mixmin/random_search.h"
#include "synthetic_proxies.h"
#include "tests/support/unit_test.h"

using namespace dpmix::mixmin;
using namespace dpmix::test_support;

class TestRandomSearch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noCandidatesKeepsUniform() {
        const auto d = testing::randomBinaryData(50, 4, 1);
        const auto r = randomSearch(makeBinaryObjective(d.p, d.y).value(), {.candidates = 0}).value();
        QCOMPARE(r.chosenIndex, 0LL);
        QCOMPARE(r.evaluated, 1LL);
        QCOMPARE(r.lambda, Eigen::VectorXd(Eigen::VectorXd::Constant(4, 0.25)));
        DPMIX_COMPARE_NEAR(r.loss, testing::referenceBceLoss(d, r.lambda), 1e-12);
    }

    void manyCandidatesFindTheOptimumOnThreeSources() {
        for (std::uint64_t seed : {1u, 2u, 3u}) {
            const auto d = testing::informativeSourceData(500, 3, seed);
            const auto o = makeBinaryObjective(d.p, d.y).value();
            const auto r = randomSearch(o, {.candidates = 3000, .seed = seed}).value();
            const Eigen::Vector3d grid =
                testing::gridMinimiser3([&](const Eigen::VectorXd& l) { return testing::referenceBceLoss(d, l); }, 300);
            const double excess = r.loss - testing::referenceBceLoss(d, grid);
            QVERIFY2(excess < 2e-3, str("seed ", seed, ": excess ", excess).c_str());
            QVERIFY(r.loss <= testing::referenceBceLoss(d, Eigen::VectorXd::Constant(3, 1.0 / 3)));
            QVERIFY(std::abs(r.lambda.sum() - 1) < 1e-12 && r.lambda.minCoeff() >= 0);
        }
    }

    void isRecordedAsNonPrivate() {
        const auto d = testing::randomBinaryData(50, 3, 1);
        const auto r = randomSearch(makeBinaryObjective(d.p, d.y).value(), {.candidates = 10}).value();
        QVERIFY(r.ledgerEntry.mechanism == dpmix::privacy::MechanismKind::NonPrivate);
        QCOMPARE(r.ledgerEntry.stage, std::string("random-search"));
        QCOMPARE(r.ledgerEntry.split, std::string("A"));
        QVERIFY(contains(r.ledgerEntry.assumptions, "without DP"));
    }

    void badOptionsNameTheField() {
        const auto d = testing::randomBinaryData(50, 3, 1);
        const auto r = randomSearch(makeBinaryObjective(d.p, d.y).value(), {.candidates = -1});
        QVERIFY(contains(r.error().message, "candidates = -1 is out of range"));
    }
};

QTEST_APPLESS_MAIN(TestRandomSearch)
#include "tst_random_search.moc"
