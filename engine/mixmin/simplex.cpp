#include "engine/mixmin/simplex.h"

#include <cmath>

namespace dpmix::mixmin {

Eigen::VectorXd uniformWeights(Eigen::Index k) {
    return Eigen::VectorXd::Constant(k, 1.0 / static_cast<double>(k));
}

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
    std::exponential_distribution<double> exp1(1.0);
    Eigen::VectorXd w(k);
    for (Eigen::Index i = 0; i < k; ++i) w(i) = exp1(rng);
    return w / w.sum();
}

}  // namespace dpmix::mixmin
