#pragma once
// Internal (torch) header: the gradient canaries of one DP-SGD run (gradient_canaries.h) inside
// its steps. The sampler draws over N + included units; rows ≥ N are the included canaries, which
// take no forward pass: each sampled one adds C at its coordinate of .grad() after the clipped sum
// of the sampled examples is written and before the noise, so the mechanism sees it as one more
// clipped example. After the noise the noisy sum is read back at every canary's coordinate.
#include "engine/core/result.h"
#include "engine/train/detail/network.h"
#include "engine/train/gradient_canaries.h"

#include <cstdint>
#include <vector>

namespace dpmix::train::detail {

/// The coordinates are distinct, inside the network, in the last `trainLastBlocks` blocks (all
/// when ≤ 0), and one coin per coordinate.
Status checkGradientCanaries(Network& net, int trainLastBlocks, const GradientCanaries& canaries);

class GradientCanarySteps {
public:
    /// `net` and `canaries` must outlive this object; checkGradientCanaries has passed.
    GradientCanarySteps(Network& net, const GradientCanaries& canaries, std::int64_t examples, double clipNorm);

    /// Units the sampler draws over: the examples and the included canaries.
    std::int64_t units() const { return examples_ + static_cast<std::int64_t>(includedIds_.size()); }
    /// Removes the canaries' rows from a sampled batch and remembers which canaries they were.
    void takeSampledCanaries(std::vector<std::int64_t>& batch);
    /// Adds C at each sampled canary's coordinate of .grad() (the clipped sum so far).
    void addSampledCanaries();
    /// Hands the noisy sum at every canary's coordinate to canaries.observe: .grad() after
    /// privatiseGradients is (sum + noise) / denominator.
    void observe(long long step, double denominator);

private:
    struct ParameterCanaries {
        at::Tensor* parameter = nullptr;
        std::vector<std::int64_t> canary, local;  // canary ids and their flat indices in the tensor
        at::Tensor localIndex;                    // `local` on the parameter's device
    };
    const GradientCanaries& canaries_;
    std::int64_t examples_;
    double clipNorm_;
    std::vector<ParameterCanaries> byParameter_;
    std::vector<std::size_t> groupOf_, slotOf_;  // canary id → its group and place in it
    std::vector<std::int64_t> includedIds_;      // sampler row N + k ↦ canary includedIds_[k]
    std::vector<std::int64_t> sampled_;          // this step's sampled canaries
    std::vector<double> values_;
};

}  // namespace dpmix::train::detail
