#include "engine/adamix/softmax_head.h"

#include <cmath>

namespace dpmix::adamix {
namespace {

Eigen::MatrixXd logits(const HeadMatrix& theta, const LabelledFeatures& data) { return data.augmented * theta.transpose(); }

// Row-wise softmax, stabilised by the row maximum.
Eigen::MatrixXd softmaxRows(Eigen::MatrixXd z) {
    for (Eigen::Index i = 0; i < z.rows(); ++i) {
        z.row(i).array() -= z.row(i).maxCoeff();
        z.row(i) = z.row(i).array().exp().matrix();
        z.row(i) /= z.row(i).sum();
    }
    return z;
}

}  // namespace

HeadMatrix unflatten(const Eigen::VectorXd& v, int classes) {
    const Eigen::Index cols = v.size() / classes;
    return Eigen::Map<const HeadMatrix>(v.data(), classes, cols);
}

Eigen::MatrixXd residuals(const HeadMatrix& theta, const LabelledFeatures& data) {
    Eigen::MatrixXd r = softmaxRows(logits(theta, data));
    for (Eigen::Index i = 0; i < r.rows(); ++i) r(i, data.labels(i)) -= 1.0;
    return r;
}

RowMatrix perExampleGradients(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented) {
    const Eigen::Index n = residuals.rows(), k = residuals.cols(), a = augmented.cols();
    RowMatrix g(n, k * a);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index c = 0; c < k; ++c) g.row(i).segment(c * a, a) = residuals(i, c) * augmented.row(i);
    return g;
}

HeadMatrix weightedGradientSum(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented,
                               const Eigen::VectorXd& weights) {
    if (weights.size() == 0) return residuals.transpose() * augmented;
    return residuals.transpose() * weights.asDiagonal() * augmented;
}

double meanLoss(const HeadMatrix& theta, const LabelledFeatures& data) {
    if (data.examples() == 0) return 0.0;
    const Eigen::MatrixXd z = logits(theta, data);
    double total = 0.0;
    for (Eigen::Index i = 0; i < z.rows(); ++i) {
        const double m = z.row(i).maxCoeff();
        total += m + std::log((z.row(i).array() - m).exp().sum()) - z(i, data.labels(i));
    }
    return total / static_cast<double>(z.rows());
}

double accuracy(const HeadMatrix& theta, const LabelledFeatures& data) {
    if (data.examples() == 0) return 0.0;
    const Eigen::MatrixXd z = logits(theta, data);
    long long correct = 0;
    for (Eigen::Index i = 0; i < z.rows(); ++i) {
        Eigen::Index best = 0;
        z.row(i).maxCoeff(&best);
        correct += best == data.labels(i) ? 1 : 0;
    }
    return static_cast<double>(correct) / static_cast<double>(z.rows());
}

HeadFit fitHead(const LabelledFeatures& data, double ridge, long long maxIterations, double tolerance) {
    HeadFit fit;
    fit.theta = HeadMatrix::Zero(data.classes, data.augmentedDim());
    const double n = static_cast<double>(std::max<Eigen::Index>(1, data.examples()));
    const double step = 1.0 / (1.0 + ridge);
    for (fit.iterations = 0; fit.iterations < maxIterations; ++fit.iterations) {
        const HeadMatrix grad = weightedGradientSum(residuals(fit.theta, data), data.augmented) / n + ridge * fit.theta;
        fit.gradientNorm = grad.norm();
        if (fit.gradientNorm <= tolerance) {
            fit.converged = true;
            return fit;
        }
        fit.theta -= step * grad;
    }
    const HeadMatrix grad = weightedGradientSum(residuals(fit.theta, data), data.augmented) / n + ridge * fit.theta;
    fit.gradientNorm = grad.norm();
    fit.converged = fit.gradientNorm <= tolerance;
    return fit;
}

}  // namespace dpmix::adamix
