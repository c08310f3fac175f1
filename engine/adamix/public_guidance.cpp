#include "engine/adamix/public_guidance.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace dpmix::adamix {

namespace {
// Below this ratio to the largest singular value, A = G V Σ⁻² amplifies rounding by more than 1e6.
constexpr double kMinRelativeSingularValue = 1e-6;

// Every kept singular value (descending) is positive and at least 1e-6 of the largest.
bool coefficientsAreAccurate(const Eigen::VectorXd& singularValues) {
    const Eigen::Index kept = singularValues.size();
    if (kept == 0) return false;
    const double smallest = singularValues(kept - 1);
    return smallest > 0.0 && smallest >= kMinRelativeSingularValue * singularValues(0);
}
}  // namespace

Eigen::Index subspaceRank(int rank, Eigen::Index publicExamples, Eigen::Index dimension) {
    return std::min<Eigen::Index>({static_cast<Eigen::Index>(rank), publicExamples, dimension});
}

PublicSubspace topPublicSubspace(const RowMatrix& gradients, int rank) {
    const Eigen::Index r = subspaceRank(rank, gradients.rows(), gradients.cols());
    if (r <= 0) return {Eigen::MatrixXd(gradients.cols(), 0), Eigen::VectorXd(0)};
    const Eigen::MatrixXd g = gradients;  // BDCSVD wants column-major
    Eigen::BDCSVD<Eigen::MatrixXd> svd(g, Eigen::ComputeThinV);
    return {svd.matrixV().leftCols(r), svd.singularValues().head(r)};
}

Eigen::MatrixXd topRightSingularVectors(const RowMatrix& gradients, int rank) {
    return topPublicSubspace(gradients, rank).basis;
}

double quantile(std::vector<double> values, double tau) {
    std::sort(values.begin(), values.end());
    const double position = tau * static_cast<double>(values.size() - 1);
    const auto low = static_cast<std::size_t>(std::floor(position));
    const std::size_t high = std::min(low + 1, values.size() - 1);
    const double fraction = position - static_cast<double>(low);
    return values[low] + fraction * (values[high] - values[low]);
}

PublicGuidance publicGuidance(const HeadMatrix& theta, const LabelledFeatures& publicSet, const AdamixParams& params) {
    PublicGuidance g;
    g.identity = params.projection == Projection::None;
    g.publicGradientSum = HeadMatrix::Zero(theta.rows(), theta.cols());
    const bool needsPublic = params.usesPublicData() && publicSet.examples() > 0;
    if (needsPublic) {
        const Eigen::MatrixXd r = residuals(theta, publicSet);
        g.publicGradientSum = weightedGradientSum(r, publicSet.augmented);
        if (!g.identity || params.clip == ClipRule::PublicQuantile) {
            const RowMatrix gradients = perExampleGradients(r, publicSet.augmented);
            if (g.identity) {
                g.projectedPublicNorms = gradients.rowwise().norm();
            } else {
                PublicSubspace subspace = topPublicSubspace(gradients, params.rank);
                g.basis = std::move(subspace.basis);
                const Eigen::MatrixXd projected = gradients * g.basis;  // U_r Σ_r
                g.projectedPublicNorms = projected.rowwise().norm();
                if (coefficientsAreAccurate(subspace.singularValues)) {
                    g.basisCoefficients =
                        projected * subspace.singularValues.array().square().inverse().matrix().asDiagonal();
                    g.publicResiduals = r;
                }
            }
        }
    }
    if (params.clip == ClipRule::Fixed) {
        g.clip = params.fixedClip;
    } else {
        const std::vector<double> norms(g.projectedPublicNorms.data(),
                                        g.projectedPublicNorms.data() + g.projectedPublicNorms.size());
        g.clip = std::max(params.clipFloor, quantile(norms, params.clipQuantile));
    }
    return g;
}

}  // namespace dpmix::adamix
