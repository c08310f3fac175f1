#pragma once
// Poisson sampling of a batch: each of n examples (or users) independently with probability q.
// The batch size is random (Binomial(n, q)); DP-SGD's privacy analysis assumes exactly this, not
// fixed-size shuffling — and that the batches are secret, so the draws come from the
// mechanism's own privacy::MechanismRng (engine/data's sampler, one 64-bit draw per unit).
#include "engine/data/poisson_sampler.h"
#include "engine/privacy/mechanism_random.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace dpmix::train::detail {

class PoissonSampler {
public:
    PoissonSampler(std::int64_t n, double q, const privacy::RandomnessSource& source)
        : n_(n), q_(q), rng_(source, "sampling") {}

    std::vector<std::int64_t> next() {
        const std::vector<std::size_t> picked = data::poissonSample(static_cast<std::size_t>(n_), q_, rng_);
        return {picked.begin(), picked.end()};
    }

private:
    std::int64_t n_;
    double q_;
    privacy::MechanismRng rng_;
};

}  // namespace dpmix::train::detail
