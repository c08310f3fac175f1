#pragma once
// Poisson sampling of a batch: each of n examples independently with probability q. The
// batch size is random (Binomial(n, q)); DP-SGD's privacy analysis assumes exactly this, not
// fixed-size shuffling.
#include <cstdint>
#include <random>
#include <vector>

namespace dpmix::train::detail {

class PoissonSampler {
public:
    PoissonSampler(std::int64_t n, double q, std::uint64_t seed) : n_(n), q_(q), rng_(seed) {}

    std::vector<std::int64_t> next() {
        std::vector<std::int64_t> batch;
        batch.reserve(static_cast<std::size_t>(static_cast<double>(n_) * q_ * 1.2) + 8);
        for (std::int64_t i = 0; i < n_; ++i)
            if (uniform_(rng_) < q_) batch.push_back(i);
        return batch;
    }

private:
    std::int64_t n_;
    double q_;
    std::mt19937_64 rng_;
    std::uniform_real_distribution<double> uniform_{0.0, 1.0};
};

}  // namespace dpmix::train::detail
