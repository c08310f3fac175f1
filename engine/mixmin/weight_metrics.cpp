#include "engine/mixmin/weight_metrics.h"

#include "engine/mixmin/simplex.h"

#include <stdexcept>

namespace dpmix::mixmin {

double cosineSimilarity(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    if (a.size() != b.size()) throw std::invalid_argument("cosineSimilarity: vectors of different sizes");
    const double na = a.norm(), nb = b.norm();
    if (na == 0.0 || nb == 0.0) return 0.0;
    return a.dot(b) / (na * nb);
}

double l1Distance(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    if (a.size() != b.size()) throw std::invalid_argument("l1Distance: vectors of different sizes");
    return (a - b).lpNorm<1>();
}

WeightQuality compareWithReference(const Eigen::VectorXd& lambda, const Eigen::VectorXd& reference) {
    const Eigen::VectorXd u = uniformWeights(reference.size());
    return {cosineSimilarity(lambda, reference), l1Distance(lambda, reference), cosineSimilarity(u, reference),
            l1Distance(u, reference)};
}

}  // namespace dpmix::mixmin
