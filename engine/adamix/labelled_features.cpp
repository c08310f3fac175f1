#include "engine/adamix/labelled_features.h"

#include <cmath>
#include <string>

namespace dpmix::adamix {

Result<LabelledFeatures> makeLabelledFeatures(const Eigen::MatrixXd& features, const Eigen::VectorXi& labels,
                                              int classes, const std::string& what) {
    if (classes < 2)
        return Error{"classes = " + std::to_string(classes) + " is out of range: expected at least 2", "classes"};
    if (features.cols() < 1)
        return Error{what + " features have no columns: expected a feature dimension p >= 1", what + "-features"};
    if (labels.size() != features.rows())
        return Error{what + " labels: " + std::to_string(labels.size()) + " labels for " +
                         std::to_string(features.rows()) + " feature rows",
                     what + "-labels"};
    if (!features.allFinite()) return Error{what + " features contain NaN or infinite values", what + "-features"};
    for (Eigen::Index i = 0; i < labels.size(); ++i)
        if (labels(i) < 0 || labels(i) >= classes)
            return Error{what + " label " + std::to_string(labels(i)) + " (row " + std::to_string(i) +
                             ") is out of range: expected a class in [0, " + std::to_string(classes) + ")",
                         what + "-labels"};
    LabelledFeatures out;
    out.classes = classes;
    out.labels = labels;
    out.augmented.resize(features.rows(), features.cols() + 1);
    for (Eigen::Index i = 0; i < features.rows(); ++i) {
        const double norm = features.row(i).norm();
        out.augmented.row(i).head(features.cols()) = norm > 0.0 ? (features.row(i) / norm).eval() : features.row(i);
        out.augmented(i, features.cols()) = 1.0;
    }
    return out;
}

}  // namespace dpmix::adamix
