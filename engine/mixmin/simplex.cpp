#include "engine/mixmin/simplex.h"

#include "engine/data/portable_random.h"

#include <cmath>

namespace dpmix::mixmin {

Eigen::VectorXd uniformWeights(Eigen::Index k) { return Eigen::VectorXd::Constant(k, 1.0 / static_cast<double>(k)); }

void mirrorStep(Eigen::VectorXd& logLambda, const Eigen::VectorXd& gradient, double stepSize) {
    logLambda -= stepSize * gradient;
    const double m = logLambda.maxCoeff();
    logLambda.array() -= m + std::log((logLambda.array() - m).exp().sum());
}

Eigen::VectorXd weightsFromLog(const Eigen::VectorXd& logLambda) {
    const double m = logLambda.maxCoeff();
    Eigen::VectorXd w = (logLambda.array() - m).exp().matrix();
    return w / w.sum();
}

Eigen::VectorXd sampleUniformSimplex(Eigen::Index k, std::mt19937_64& rng) {
    // Exp(1) = −log(1 − U), U ∈ [0, 1): portable, unlike std::exponential_distribution.
    Eigen::VectorXd w(k);
    for (Eigen::Index i = 0; i < k; ++i) w(i) = -std::log1p(-data::uniform01(rng));
    return w / w.sum();
}

}  // namespace dpmix::mixmin
