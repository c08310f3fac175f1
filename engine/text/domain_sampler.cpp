#include "engine/text/domain_sampler.h"

#include "engine/data/portable_random.h"

#include <cmath>
#include <string>

namespace dpmix::text {

Result<DomainSampler> makeDomainSampler(const Eigen::VectorXd& lambda,
                                        std::vector<std::vector<std::size_t>> documentsOfDomain) {
    if (lambda.size() == 0) return Error{"sampler: λ is empty"};
    if (static_cast<std::size_t>(lambda.size()) != documentsOfDomain.size())
        return Error{"sampler: λ has " + std::to_string(lambda.size()) + " weights but there are " +
                     std::to_string(documentsOfDomain.size()) + " domains"};
    DomainSampler sampler;
    double sum = 0.0;
    for (Eigen::Index i = 0; i < lambda.size(); ++i) {
        if (!std::isfinite(lambda[i]) || lambda[i] < 0)
            return Error{"sampler: λ[" + std::to_string(i) + "] = " + std::to_string(lambda[i]) +
                         ", expected a finite value ≥ 0"};
        if (lambda[i] > 0 && documentsOfDomain[static_cast<std::size_t>(i)].empty())
            return Error{"sampler: domain " + std::to_string(i) + " has weight " + std::to_string(lambda[i]) +
                         " but no documents"};
        sum += lambda[i];
        sampler.cumulative_.push_back(sum);
    }
    if (std::abs(sum - 1.0) > 1e-9) return Error{"sampler: λ sums to " + std::to_string(sum) + ", expected 1"};
    // The last domain with positive weight absorbs rounding, so u < 1 always lands on a valid domain.
    for (std::size_t i = sampler.cumulative_.size(); i-- > 0;)
        if (lambda[static_cast<Eigen::Index>(i)] > 0) {
            for (std::size_t m = i; m < sampler.cumulative_.size(); ++m) sampler.cumulative_[m] = 1.0;
            break;
        }
    sampler.documents_ = std::move(documentsOfDomain);
    return sampler;
}

SampledDocument DomainSampler::sample(std::mt19937_64& generator) const {
    const double u = data::uniform01(generator);
    std::size_t domain = 0;
    while (cumulative_[domain] <= u) ++domain;  // zero-weight domains have an empty interval
    const auto& docs = documents_[domain];
    return {domain, docs[static_cast<std::size_t>(data::uniformBelow(generator, docs.size()))]};
}

}  // namespace dpmix::text
