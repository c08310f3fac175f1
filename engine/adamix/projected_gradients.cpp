#include "engine/adamix/projected_gradients.h"

#include <algorithm>

namespace dpmix::adamix {
namespace {
constexpr Eigen::Index kRowBlock = 2048;
}

Eigen::MatrixXd projectPerExampleGradients(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented,
                                           const Eigen::MatrixXd& basis) {
    const Eigen::Index n = residuals.rows(), k = residuals.cols(), a = augmented.cols(), r = basis.cols();
    // B = [M_1ᵀ … M_rᵀ], (p+1) × rK: column v·K + c of B is row c of M_v, i.e. basis(c·a .. c·a+a−1, v).
    Eigen::MatrixXd stacked(a, r * k);
    for (Eigen::Index v = 0; v < r; ++v)
        for (Eigen::Index c = 0; c < k; ++c) stacked.col(v * k + c) = basis.col(v).segment(c * a, a);
    Eigen::MatrixXd h(n, r);
    for (Eigen::Index start = 0; start < n; start += kRowBlock) {
        const Eigen::Index rows = std::min(kRowBlock, n - start);
        const Eigen::MatrixXd products = augmented.middleRows(start, rows) * stacked;  // rows × rK
        for (Eigen::Index v = 0; v < r; ++v)
            h.block(start, v, rows, 1) =
                (products.middleCols(v * k, k).array() * residuals.middleRows(start, rows).array()).rowwise().sum();
    }
    return h;
}

Eigen::MatrixXd projectThroughPublicGradients(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& crossGram,
                                              const Eigen::MatrixXd& publicResiduals,
                                              const Eigen::MatrixXd& coefficients) {
    const Eigen::Index n = residuals.rows();
    Eigen::MatrixXd h(n, coefficients.cols());
    Eigen::MatrixXd inner;
    // By blocks of rows, so that the block of inner products stays in cache.
    for (Eigen::Index start = 0; start < n; start += kRowBlock) {
        const Eigen::Index rows = std::min(kRowBlock, n - start);
        // ⟨g_i, g_j^pub⟩ for the block. The product is evaluated on its own first: inside
        // cwiseProduct Eigen would evaluate it lazily, coefficient by coefficient, ~5× slower.
        inner.noalias() = residuals.middleRows(start, rows) * publicResiduals.transpose();
        inner.array() *= crossGram.middleRows(start, rows).array();
        h.middleRows(start, rows).noalias() = inner * coefficients;
    }
    return h;
}

bool projectsThroughPublicGradients(Eigen::Index privateExamples, Eigen::Index publicExamples, Eigen::Index classes,
                                    Eigen::Index augmentedDim, Eigen::Index rank) {
    constexpr double kMaxCrossGramBytes = 256.0 * 1024.0 * 1024.0;
    const double m = static_cast<double>(publicExamples), r = static_cast<double>(rank);
    const double k = static_cast<double>(classes), a = static_cast<double>(augmentedDim);
    const double bytes = static_cast<double>(privateExamples) * m * sizeof(double);
    return publicExamples > 0 && m * (k + 1.0 + r) < r * k * a && bytes <= kMaxCrossGramBytes;
}

Eigen::VectorXd perExampleGradientNorms(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented) {
    return residuals.rowwise().norm().cwiseProduct(augmented.rowwise().norm());
}

Eigen::VectorXd clipFactors(const Eigen::VectorXd& norms, double clip) {
    Eigen::VectorXd f(norms.size());
    for (Eigen::Index i = 0; i < norms.size(); ++i) f(i) = norms(i) > clip ? clip / norms(i) : 1.0;
    return f;
}

}  // namespace dpmix::adamix
