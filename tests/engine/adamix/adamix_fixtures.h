#pragma once
// Synthetic data for the AdaMix-R tests: Gaussian blobs, one per class, in p dimensions, drawn
// with a fixed seed (std::mt19937_64, whose sequence the standard fixes).
#include "engine/adamix/labelled_features.h"
#include "engine/adamix/softmax_head.h"

#include <Eigen/Dense>

#include <random>

namespace dpmix::adamix::test {

struct Blobs {
    Eigen::MatrixXd features;
    Eigen::VectorXi labels;
};

/// `perClass` points per class around class centres drawn once from `centreSeed` (so sets drawn
/// with different `seed` share the centres), isotropic noise of std `spread`.
inline Blobs gaussianBlobs(int classes, int p, int perClass, double spread, unsigned seed, unsigned centreSeed = 7) {
    std::mt19937_64 centreGen(centreSeed);
    std::normal_distribution<double> normal(0.0, 1.0);
    Eigen::MatrixXd centres(classes, p);
    for (int k = 0; k < classes; ++k)
        for (int j = 0; j < p; ++j) centres(k, j) = 2.0 * normal(centreGen);
    std::mt19937_64 gen(seed);
    Blobs b;
    b.features.resize(classes * perClass, p);
    b.labels.resize(classes * perClass);
    for (int k = 0; k < classes; ++k)
        for (int i = 0; i < perClass; ++i) {
            const int row = k * perClass + i;
            b.labels(row) = k;
            for (int j = 0; j < p; ++j) b.features(row, j) = centres(k, j) + spread * normal(gen);
        }
    return b;
}

inline LabelledFeatures labelledBlobs(int classes, int p, int perClass, double spread, unsigned seed,
                                      unsigned centreSeed = 7) {
    const Blobs b = gaussianBlobs(classes, p, perClass, spread, seed, centreSeed);
    return makeLabelledFeatures(b.features, b.labels, classes, "test").value();
}

/// A random head θ ∈ R^{K×(p+1)} with N(0, scale²) entries.
inline HeadMatrix randomHead(int classes, int augmentedDim, double scale, unsigned seed) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal(0.0, scale);
    HeadMatrix theta(classes, augmentedDim);
    for (Eigen::Index i = 0; i < theta.size(); ++i) theta.data()[i] = normal(gen);
    return theta;
}

}  // namespace dpmix::adamix::test
