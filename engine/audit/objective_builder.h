#pragma once
// A recipe for the mixture objective of any subset of a fixed set of examples (the full
// sensitive train set, or a public pilot set): what the ρ sweep and the ρ calibration need to
// form split A for each ρ and seed.
#include "engine/core/result.h"
#include "engine/mixmin/objective.h"

#include <Eigen/Dense>

#include <cstddef>
#include <functional>
#include <vector>

namespace dpmix::audit {

struct ObjectiveBuilder {
    std::size_t examples = 0;  // size of the full set the rows index into
    /// The objective of the examples `rows` (distinct, each < examples).
    std::function<Result<mixmin::MixtureObjective>(const std::vector<std::size_t>& rows)> build;
};

/// Binary task: rows of `probabilities` (n × k, proxy i's P(y = 1 | x)) and `labels` (0/1).
/// Errors (size mismatch) name the argument.
Result<ObjectiveBuilder> binaryObjectiveBuilder(Eigen::MatrixXd probabilities, std::vector<int> labels);

/// The objective of all examples of a builder.
Result<mixmin::MixtureObjective> buildAll(const ObjectiveBuilder& builder);

}  // namespace dpmix::audit
