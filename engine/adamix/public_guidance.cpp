#include "engine/adamix/public_guidance.h"

#include <algorithm>
#include <cmath>

namespace dpmix::adamix {

Eigen::MatrixXd topRightSingularVectors(const RowMatrix& gradients, int rank) {
    const Eigen::Index r = std::min<Eigen::Index>({static_cast<Eigen::Index>(rank), gradients.rows(), gradients.cols()});
    if (r <= 0) return Eigen::MatrixXd(gradients.cols(), 0);
    const Eigen::MatrixXd g = gradients;  // BDCSVD wants column-major
    Eigen::BDCSVD<Eigen::MatrixXd> svd(g, Eigen::ComputeThinV);
    return svd.matrixV().leftCols(r);
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
            if (!g.identity) g.basis = topRightSingularVectors(gradients, params.rank);
            g.projectedPublicNorms = g.identity ? gradients.rowwise().norm().eval()
                                                : (gradients * g.basis).rowwise().norm().eval();
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
