#pragma once
// Frozen features with labels, in the form the softmax head uses: each feature vector scaled to
// unit L2 norm and augmented with a constant 1 for the bias (docs/ADAMIX.md, "The model").
#include "engine/core/result.h"

#include <Eigen/Dense>

namespace dpmix::adamix {

struct LabelledFeatures {
    Eigen::MatrixXd augmented;  // n × (p+1): [φ/‖φ‖, 1] per row (a zero φ stays zero)
    Eigen::VectorXi labels;     // n, each in [0, classes)
    int classes = 0;            // K

    Eigen::Index examples() const { return augmented.rows(); }
    Eigen::Index augmentedDim() const { return augmented.cols(); }  // p + 1
};

/// Normalises and augments `features` (n × p). Errors name the field: `what` is the name of the
/// data set in messages ("public", "private").
Result<LabelledFeatures> makeLabelledFeatures(const Eigen::MatrixXd& features, const Eigen::VectorXi& labels,
                                              int classes, const std::string& what);

}  // namespace dpmix::adamix
