#include "engine/train/detail/rank_exchange.h"

#include "engine/train/detail/ghost_clipping.h"

namespace dpmix::train::detail {

void sumNoisyGradientsAcrossRanks(const std::vector<at::Tensor*>& params, double noiseStd, double sensitivity,
                                  double denominator, privacy::MechanismRng* noise, RankExchange& ranks,
                                  std::array<double, 3>& stats) {
    at::NoGradGuard noGrad;
    // Dividing by 1 is exact, so rank 0's contribution is bit for bit the 1-rank run's noisy sum
    // before its division by q·N.
    if (noise) {
        privatiseGradients(params, noiseStd, sensitivity, 1.0, *noise);
    } else {
        for (at::Tensor* p : params)
            if (!p->grad().defined()) p->mutable_grad() = at::zeros_like(*p);
    }
    // One all-reduce for the whole model: the gradients side by side, on the CPU (Gloo's side).
    std::vector<at::Tensor> pieces;
    pieces.reserve(params.size());
    for (at::Tensor* p : params) pieces.push_back(p->grad().reshape({-1}).to(at::kCPU));
    at::Tensor sum = at::cat(pieces);
    ranks.sumAcrossRanks(sum);
    std::int64_t offset = 0;
    for (at::Tensor* p : params) {
        const std::int64_t n = p->numel();
        at::Tensor g = p->grad();
        g.copy_(sum.slice(0, offset, offset + n).reshape(p->sizes()));
        g.div_(denominator);
        offset += n;
    }
    at::Tensor counts = at::tensor(std::vector<double>(stats.begin(), stats.end()), at::kDouble);
    ranks.sumAcrossRanks(counts);
    for (std::size_t i = 0; i < stats.size(); ++i) stats[i] = counts[static_cast<std::int64_t>(i)].item<double>();
}

}  // namespace dpmix::train::detail
