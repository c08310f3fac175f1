#pragma once
// The brute-force reference of every clipping test: clip each unit's gradient by the definition,
// one unit (an example, or a user's examples) at a time with its own backward pass, and sum.
#include "engine/train/detail/network.h"

#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace dpmix::train::testing {

using detail::Network;
using detail::Tensor;

/// Σ_u min(1, C/‖∇L_u‖) ∇L_u over units u = 0..units−1, where `unitLoss(u)` is unit u's scalar
/// loss from a forward pass of that unit's rows alone. `norms` (optional) gets the unclipped ‖∇L_u‖.
inline std::vector<Tensor> naiveClippedSum(Network& net, std::int64_t units,
                                           const std::function<Tensor(std::int64_t)>& unitLoss, double c,
                                           std::vector<double>* norms = nullptr) {
    std::vector<Tensor*> params = net.trainableParameters();
    std::vector<Tensor> inputs, sum;
    for (Tensor* p : params) {
        inputs.push_back(*p);
        sum.push_back(at::zeros_like(*p));
    }
    for (std::int64_t u = 0; u < units; ++u) {
        auto grads = torch::autograd::grad({unitLoss(u)}, inputs, {}, false, false, true);
        double sq = 0;
        for (auto& g : grads)
            if (g.defined()) sq += g.pow(2).sum().item<double>();
        const double n = std::sqrt(sq);
        if (norms) norms->push_back(n);
        const double f = std::isinf(c) ? 1.0 : std::min(1.0, c / std::max(n, 1e-12));
        for (std::size_t i = 0; i < grads.size(); ++i)
            if (grads[i].defined()) sum[i] += f * grads[i];
    }
    return sum;
}

/// The largest difference between each trainable parameter's .grad() and `expected`, relative to
/// max(1, |expected|); 1e9 when a gradient is missing.
inline double maxRelativeError(Network& net, const std::vector<Tensor>& expected) {
    std::vector<Tensor*> params = net.trainableParameters();
    double worst = 0;
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (!params[i]->grad().defined()) return 1e9;
        const double scale = std::max(1.0, expected[i].abs().max().item<double>());
        worst = std::max(worst, (params[i]->grad() - expected[i]).abs().max().item<double>() / scale);
    }
    return worst;
}

inline double medianOf(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// The small GroupNorm CNN the clipping tests check on 8×8 single-channel images: two 4-channel
/// convolutions, 5 hidden units, one output (a binary task).
inline ModelSpec tinyGroupNormCnn() {
    return ModelSpecBuilder()
        .kind(ModelKind::SmallCnn)
        .input(1, 8, 8)
        .outputs(1)
        .convWidths(4, 4)
        .hidden(5)
        .normGroups(2)
        .build()
        .value();
}

}  // namespace dpmix::train::testing
