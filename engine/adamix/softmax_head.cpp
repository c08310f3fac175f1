#include "engine/adamix/softmax_head.h"

#include <cmath>

namespace dpmix::adamix {
namespace {

Eigen::MatrixXd logits(const HeadMatrix& theta, const LabelledFeatures& data) {
    return data.augmented * theta.transpose();
}

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
    // Nesterov's accelerated gradient for an L-smooth, μ-strongly convex objective: L = 1 + ridge
    // (the loss part is at most 1-smooth on normalised features), μ = ridge, momentum
    // (√κ − 1)/(√κ + 1) with κ = L/μ; without ridge, plain gradient steps.
    const double n = static_cast<double>(std::max<Eigen::Index>(1, data.examples()));
    const auto gradient = [&](const HeadMatrix& theta) -> HeadMatrix {
        return weightedGradientSum(residuals(theta, data), data.augmented) / n + ridge * theta;
    };
    const double smoothness = 1.0 + ridge;
    const double rootKappa = ridge > 0.0 ? std::sqrt(smoothness / ridge) : 0.0;
    const double momentum = ridge > 0.0 ? (rootKappa - 1.0) / (rootKappa + 1.0) : 0.0;
    HeadFit fit;
    HeadMatrix x = HeadMatrix::Zero(data.classes, data.augmentedDim());
    HeadMatrix previous = x;
    for (fit.iterations = 0; fit.iterations < maxIterations; ++fit.iterations) {
        const HeadMatrix y = x + momentum * (x - previous);
        const HeadMatrix g = gradient(y);
        fit.gradientNorm = g.norm();
        if (fit.gradientNorm <= tolerance) {
            fit.theta = y;
            fit.converged = true;
            return fit;
        }
        previous = x;
        x = y - g / smoothness;
    }
    fit.theta = x;
    fit.gradientNorm = gradient(x).norm();
    fit.converged = fit.gradientNorm <= tolerance;
    return fit;
}

}  // namespace dpmix::adamix
