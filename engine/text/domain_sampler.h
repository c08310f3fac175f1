#pragma once
// Sampling public documents by the learned mixture λ for LM pretraining (docs/TEXT.md, "Sampler"):
// domain i with probability λ_i, then a document of that domain uniformly, i.e. a document of
// domain g has probability λ_g / n_g (as in MixMin's code). Driven by an explicit generator;
// uses only the standard's mt19937_64 output (data/portable_random.h), so the draws are the same
// on every platform for a seed.
#include "engine/core/result.h"

#include <Eigen/Core>

#include <cstddef>
#include <random>
#include <vector>

namespace dpmix::text {

struct SampledDocument {
    std::size_t domain = 0;    // index into λ
    std::size_t document = 0;  // the id given for it in documentsOfDomain (e.g. a corpus index)
};

class DomainSampler {
public:
    SampledDocument sample(std::mt19937_64& generator) const;
    std::size_t domains() const { return documents_.size(); }

private:
    friend Result<DomainSampler> makeDomainSampler(const Eigen::VectorXd&, std::vector<std::vector<std::size_t>>);
    std::vector<double> cumulative_;  // Σ_{m ≤ i} λ_m, last entry forced to 1
    std::vector<std::vector<std::size_t>> documents_;
};

/// λ: finite, ≥ 0, summing to 1 within 1e-9; documentsOfDomain[i]: the documents of domain i
/// (must be non-empty where λ_i > 0).
Result<DomainSampler> makeDomainSampler(const Eigen::VectorXd& lambda,
                                        std::vector<std::vector<std::size_t>> documentsOfDomain);

}  // namespace dpmix::text
