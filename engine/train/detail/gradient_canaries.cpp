#include "engine/train/detail/gradient_canaries.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <string>
#include <unordered_set>

namespace dpmix::train::detail {
namespace {

// Where each parameter tensor starts in the flattened parameters, and whether it trains.
struct ParameterRange {
    at::Tensor* parameter = nullptr;
    std::int64_t begin = 0, end = 0;
    bool trainable = true;
};

std::vector<ParameterRange> parameterRanges(Network& net, int trainLastBlocks) {
    const int blocks = net.blockCount();
    const int firstTrained = trainLastBlocks > 0 && trainLastBlocks < blocks ? blocks - trainLastBlocks : 0;
    std::vector<ParameterRange> out;
    std::int64_t offset = 0;
    for (int b = 0; b < blocks; ++b)
        for (at::Tensor* p : net.blocks()[static_cast<std::size_t>(b)]->parameters()) {
            out.push_back({p, offset, offset + p->numel(), b >= firstTrained});
            offset += p->numel();
        }
    return out;
}

const ParameterRange* rangeOf(const std::vector<ParameterRange>& ranges, std::int64_t coordinate) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), coordinate,
                               [](std::int64_t c, const ParameterRange& r) { return c < r.end; });
    return it == ranges.end() ? nullptr : &*it;
}

}  // namespace

Status checkGradientCanaries(Network& net, int trainLastBlocks, const GradientCanaries& canaries) {
    const auto& coords = canaries.coordinates;
    if (canaries.included.size() != coords.size())
        return Error{"gradient canaries: " + std::to_string(canaries.included.size()) + " coins for " +
                     std::to_string(coords.size()) + " canaries; expected one coin per canary"};
    const auto ranges = parameterRanges(net, trainLastBlocks);
    std::unordered_set<std::int64_t> seen;
    for (std::size_t i = 0; i < coords.size(); ++i) {
        const ParameterRange* r = coords[i] >= 0 ? rangeOf(ranges, coords[i]) : nullptr;
        if (r == nullptr)
            return Error{"gradient canary " + std::to_string(i) + ": coordinate " + std::to_string(coords[i]) +
                         " is outside the model's " + std::to_string(ranges.empty() ? 0 : ranges.back().end) +
                         " parameters"};
        if (!r->trainable)
            return Error{"gradient canary " + std::to_string(i) + ": coordinate " + std::to_string(coords[i]) +
                         " lies in a frozen block (trainLastBlocks = " + std::to_string(trainLastBlocks) + ")"};
        if (!seen.insert(coords[i]).second)
            return Error{"gradient canary " + std::to_string(i) + ": coordinate " + std::to_string(coords[i]) +
                         " is repeated; Dirac canaries need distinct coordinates"};
    }
    return std::nullopt;
}

GradientCanarySteps::GradientCanarySteps(Network& net, const GradientCanaries& canaries, std::int64_t examples,
                                         double clipNorm)
    : canaries_(canaries), examples_(examples), clipNorm_(clipNorm) {
    const auto ranges = parameterRanges(net, 0);
    const std::size_t m = canaries.coordinates.size();
    groupOf_.resize(m);
    slotOf_.resize(m);
    values_.resize(m);
    for (std::size_t i = 0; i < m; ++i) {
        const ParameterRange* r = rangeOf(ranges, canaries.coordinates[i]);
        auto group = std::find_if(byParameter_.begin(), byParameter_.end(),
                                  [&](const ParameterCanaries& g) { return g.parameter == r->parameter; });
        if (group == byParameter_.end()) group = byParameter_.insert(byParameter_.end(), {r->parameter, {}, {}, {}});
        groupOf_[i] = static_cast<std::size_t>(group - byParameter_.begin());
        slotOf_[i] = group->canary.size();
        group->canary.push_back(static_cast<std::int64_t>(i));
        group->local.push_back(canaries.coordinates[i] - r->begin);
        if (canaries.included[i] != 0) includedIds_.push_back(static_cast<std::int64_t>(i));
    }
    for (auto& g : byParameter_) g.localIndex = at::tensor(g.local, at::kLong).to(g.parameter->device());
}

void GradientCanarySteps::takeSampledCanaries(std::vector<std::int64_t>& batch) {
    sampled_.clear();
    // The sampler returns rows in increasing order: the canaries' rows N, N+1, … come last.
    const auto first = std::lower_bound(batch.begin(), batch.end(), examples_);
    for (auto it = first; it != batch.end(); ++it)
        sampled_.push_back(includedIds_[static_cast<std::size_t>(*it - examples_)]);
    batch.erase(first, batch.end());
}

void GradientCanarySteps::addSampledCanaries() {
    if (sampled_.empty()) return;
    at::NoGradGuard noGrad;
    for (std::size_t g = 0; g < byParameter_.size(); ++g) {
        std::vector<std::int64_t> local;
        for (std::int64_t id : sampled_)
            if (groupOf_[static_cast<std::size_t>(id)] == g)
                local.push_back(byParameter_[g].local[slotOf_[static_cast<std::size_t>(id)]]);
        if (local.empty()) continue;
        at::Tensor* p = byParameter_[g].parameter;
        if (!p->grad().defined()) p->mutable_grad() = at::zeros_like(*p);
        // A flat view needs contiguous memory; a strided gradient is copied (same values).
        if (!p->grad().is_contiguous()) p->mutable_grad() = p->grad().contiguous();
        at::Tensor flat = p->mutable_grad().view({-1});
        const at::Tensor index = at::tensor(local, at::kLong).to(p->device());
        flat.index_add_(0, index, at::full({static_cast<std::int64_t>(local.size())}, clipNorm_, flat.options()));
    }
}

void GradientCanarySteps::observe(long long step, double denominator) {
    if (!canaries_.observe) return;
    at::NoGradGuard noGrad;
    for (const auto& g : byParameter_) {
        const at::Tensor values =
            g.parameter->grad().reshape({-1}).index_select(0, g.localIndex).to(at::kCPU, at::kDouble).contiguous();
        const double* v = values.data_ptr<double>();
        for (std::size_t s = 0; s < g.canary.size(); ++s)
            values_[static_cast<std::size_t>(g.canary[s])] = v[s] * denominator;
    }
    canaries_.observe(step, values_);
}

}  // namespace dpmix::train::detail
