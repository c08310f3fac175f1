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

Eigen::VectorXd perExampleGradientNorms(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented) {
    return residuals.rowwise().norm().cwiseProduct(augmented.rowwise().norm());
}

Eigen::VectorXd clipFactors(const Eigen::VectorXd& norms, double clip) {
    Eigen::VectorXd f(norms.size());
    for (Eigen::Index i = 0; i < norms.size(); ++i) f(i) = norms(i) > clip ? clip / norms(i) : 1.0;
    return f;
}

}  // namespace dpmix::adamix
