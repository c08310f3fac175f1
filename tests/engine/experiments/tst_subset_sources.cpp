// Subset sources of a multi-class proxy (docs/ALGORITHMS.md F.12): hand-computed sums, subset
// choice properties.
#include "engine/experiments/subset_sources.h"

#include "tests/support/unit_test.h"

#include <set>

using namespace dpmix;
using namespace dpmix::experiments;
using namespace dpmix::test_support;

class TestSubsetSources : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void probabilitiesAreSumsOverTheSubsetByHand() {
        Eigen::MatrixXd p(2, 4);
        p << 0.1, 0.2, 0.3, 0.4, 0.7, 0.0, 0.25, 0.05;
        // {0}, {1,2}, {0,1,2,3}, {1,3}
        const std::vector<std::uint32_t> masks{0b0001, 0b0110, 0b1111, 0b1010};
        const auto P = subsetSourceProbabilities(p, masks).value();
        Eigen::MatrixXd expected(2, 4);
        expected << 0.1, 0.5, 1.0, 0.6, 0.7, 0.25, 1.0, 0.05;
        QVERIFY((P - expected).cwiseAbs().maxCoeff() < 1e-15);
    }

    void allSubsetsOfTenClassesAreDistinctAndNonEmpty() {
        const auto all = chooseClassSubsets(10, 1023, 3).value();
        const std::set<std::uint32_t> s(all.begin(), all.end());
        QCOMPARE(s.size(), std::size_t(1023));
        QCOMPARE(*s.begin(), 1u);
        QCOMPARE(*s.rbegin(), 1023u);
    }

    void subsetsAreNestedAndSeeded() {
        const auto big = chooseClassSubsets(10, 512, 7).value();
        const auto small = chooseClassSubsets(10, 8, 7).value();
        QVERIFY(std::equal(small.begin(), small.end(), big.begin()));
        QCOMPARE(chooseClassSubsets(10, 8, 7).value(), small);   // deterministic
        QVERIFY(chooseClassSubsets(10, 8, 8).value() != small);  // depends on the seed
    }

    void badInputNamesTheField() {
        auto k = chooseClassSubsets(10, 1024, 0);
        QVERIFY(!k && contains(k.error().message, "k: 1024"));
        QVERIFY(!chooseClassSubsets(1, 1, 0));
        Eigen::MatrixXd p(1, 3);
        p << 0.5, 0.4, 0.3;  // sums to 1.2
        auto r = subsetSourceProbabilities(p, {1u});
        QVERIFY(!r && contains(r.error().message, "row 0"));
        p << 0.5, 0.3, 0.2;
        QVERIFY(!subsetSourceProbabilities(p, {0b1000u}));  // class 3 of 3
        QVERIFY(!subsetSourceProbabilities(p, {0u}));
    }
};

QTEST_APPLESS_MAIN(TestSubsetSources)
#include "tst_subset_sources.moc"
