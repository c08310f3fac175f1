// Weight-quality metrics against hand-computed values.
#include "engine/mixmin/weight_metrics.h"
#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::mixmin;

class TestWeightMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handValues() {
        DPMIX_COMPARE_NEAR(cosineSimilarity(Eigen::Vector2d(1, 0), Eigen::Vector2d(1, 1)), 1 / std::sqrt(2.0), 1e-15);
        QCOMPARE(cosineSimilarity(Eigen::Vector3d(0.2, 0.3, 0.5), Eigen::Vector3d(0.4, 0.6, 1.0)), 1.0);
        QCOMPARE(cosineSimilarity(Eigen::Vector2d(1, 0), Eigen::Vector2d(0, 1)), 0.0);
        QCOMPARE(cosineSimilarity(Eigen::Vector2d(0, 0), Eigen::Vector2d(0, 1)), 0.0);
        DPMIX_COMPARE_NEAR(l1Distance(Eigen::Vector3d(0.2, 0.3, 0.5), Eigen::Vector3d(0.5, 0.3, 0.2)), 0.6, 1e-15);
    }

    void comparisonWithReferenceIncludesTheUniformBaseline() {
        // λ* = e_0 in k = 4: cos(uniform, λ*) = 1/2, ‖uniform − λ*‖₁ = 3/4 + 3·1/4 = 1.5.
        const auto w = compareWithReference(Eigen::Vector4d(0.7, 0.1, 0.1, 0.1), Eigen::Vector4d(1, 0, 0, 0));
        DPMIX_COMPARE_NEAR(w.cosine, 0.7 / std::sqrt(0.49 + 0.03), 1e-15);
        DPMIX_COMPARE_NEAR(w.l1, 0.6, 1e-15);
        DPMIX_COMPARE_NEAR(w.uniformCosine, 0.5, 1e-15);
        DPMIX_COMPARE_NEAR(w.uniformL1, 1.5, 1e-15);
    }

    void mismatchedSizesThrow() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 cosineSimilarity(Eigen::Vector2d(1, 0), Eigen::Vector3d(1, 0, 0)));
    }
};

QTEST_APPLESS_MAIN(TestWeightMetrics)
#include "tst_weight_metrics.moc"
