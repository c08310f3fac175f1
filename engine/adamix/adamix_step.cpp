#include "engine/adamix/adamix_step.h"

#include "engine/adamix/projected_gradients.h"

namespace dpmix::adamix {

PrivateRelease releasePrivateSum(const HeadMatrix& theta, const LabelledFeatures& batch, const PublicGuidance& guidance,
                                 double noiseStd, privacy::MechanismRng* rng, const Eigen::MatrixXd* crossGram) {
    PrivateRelease out;
    const Eigen::MatrixXd r = residuals(theta, batch);
    const double clipSquared = guidance.clip * guidance.clip;
    if (guidance.identity) {
        const Eigen::VectorXd norms = perExampleGradientNorms(r, batch.augmented);
        const Eigen::VectorXd factors = clipFactors(norms, guidance.clip);
        out.clippedSum = flat(weightedGradientSum(r, batch.augmented, factors));
        out.normRatios = (norms.cwiseProduct(factors)).array().square() / clipSquared;
    } else {
        const bool throughPublic = crossGram && guidance.basisCoefficients.size() > 0;
        const Eigen::MatrixXd h = throughPublic ? projectThroughPublicGradients(r, *crossGram, guidance.publicResiduals,
                                                                                guidance.basisCoefficients)
                                                : projectPerExampleGradients(r, batch.augmented, guidance.basis);
        const Eigen::VectorXd norms = h.rowwise().norm();
        const Eigen::VectorXd factors = clipFactors(norms, guidance.clip);
        out.clippedSum = h.transpose() * factors;
        out.normRatios = (norms.cwiseProduct(factors)).array().square() / clipSquared;
    }
    out.normRatios = out.normRatios.cwiseMin(1.0);  // rounding only: a clipped norm is at most C_t
    out.noisySum = out.clippedSum;
    if (rng && noiseStd > 0.0)
        for (Eigen::Index i = 0; i < out.noisySum.size(); ++i) out.noisySum(i) += noiseStd * rng->gaussian();
    return out;
}

HeadMatrix mixedGradient(const HeadMatrix& theta, const HeadMatrix& theta0, const PublicGuidance& guidance,
                         const PrivateRelease& release, const AdamixParams& params) {
    const Eigen::VectorXd privateDirection =
        (guidance.identity ? release.noisySum : (guidance.basis * release.noisySum).eval()) / params.q;
    HeadMatrix g = unflatten(privateDirection, static_cast<int>(theta.rows()));
    double count = static_cast<double>(params.privateExamples);
    if (params.publicGradientTerm) {
        g += guidance.publicGradientSum;
        count += static_cast<double>(params.publicExamples);
    }
    return g / count + params.ridge * (theta - theta0);
}

}  // namespace dpmix::adamix
