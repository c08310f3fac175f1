#include "engine/audit/objective_builder.h"

#include <memory>
#include <numeric>
#include <string>

namespace dpmix::audit {

Result<ObjectiveBuilder> binaryObjectiveBuilder(Eigen::MatrixXd probabilities, std::vector<int> labels) {
    if (static_cast<std::size_t>(probabilities.rows()) != labels.size())
        return Error{"labels: " + std::to_string(labels.size()) + " labels for " +
                     std::to_string(probabilities.rows()) + " rows of proxy probabilities; expected one label per row"};
    struct Data {
        Eigen::MatrixXd p;
        std::vector<int> y;
    };
    auto data = std::make_shared<const Data>(Data{std::move(probabilities), std::move(labels)});
    ObjectiveBuilder b;
    b.examples = data->y.size();
    b.build = [data](const std::vector<std::size_t>& rows) -> Result<mixmin::MixtureObjective> {
        Eigen::MatrixXd p(static_cast<Eigen::Index>(rows.size()), data->p.cols());
        std::vector<int> y;
        y.reserve(rows.size());
        for (std::size_t r = 0; r < rows.size(); ++r) {
            if (rows[r] >= data->y.size())
                return Error{"rows: index " + std::to_string(rows[r]) + " is outside the " +
                             std::to_string(data->y.size()) + " examples"};
            p.row(static_cast<Eigen::Index>(r)) = data->p.row(static_cast<Eigen::Index>(rows[r]));
            y.push_back(data->y[rows[r]]);
        }
        return mixmin::makeBinaryObjective(p, y);
    };
    return b;
}

Result<mixmin::MixtureObjective> buildAll(const ObjectiveBuilder& builder) {
    std::vector<std::size_t> all(builder.examples);
    std::iota(all.begin(), all.end(), std::size_t{0});
    return builder.build(all);
}

}  // namespace dpmix::audit
