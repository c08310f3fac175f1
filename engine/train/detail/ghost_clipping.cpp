#include "engine/train/detail/ghost_clipping.h"

#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <set>
#include <stdexcept>

namespace dpmix::train::detail {

Tensor clipAndSumGradients(Tape& tape, const Tensor& perExampleLoss, double clipNorm) {
    std::set<TrainableLayer*> seen;
    std::vector<Tensor> outputs;
    for (const Capture& c : tape.captures) {
        if (!seen.insert(c.layer).second)
            throw std::logic_error("clipAndSumGradients: layer " + c.layer->name() + " was applied twice");
        outputs.push_back(c.output);
    }
    if (outputs.empty()) return at::zeros_like(perExampleLoss);
    // d(Σ_b ℓ_b)/d output_l: row b only depends on example b, so it is example b's own gradient.
    std::vector<Tensor> gradOutputs = torch::autograd::grad({perExampleLoss.sum()}, outputs, {},
                                                            /*retain_graph=*/false, /*create_graph=*/false,
                                                            /*allow_unused=*/true);
    at::NoGradGuard noGrad;
    Tensor squared = at::zeros_like(perExampleLoss);
    for (std::size_t l = 0; l < tape.captures.size(); ++l) {
        Capture& c = tape.captures[l];
        if (!gradOutputs[l].defined()) continue;  // layer does not affect the loss: zero gradient
        squared = squared + c.layer->perExampleSquaredNorms(c, gradOutputs[l]);
    }
    Tensor norms = squared.clamp_min(0).sqrt();
    Tensor weights = std::isinf(clipNorm) ? at::ones_like(norms)
                                          : (clipNorm / norms.clamp_min(1e-12)).clamp_max(1.0);
    for (std::size_t l = 0; l < tape.captures.size(); ++l) {
        Capture& c = tape.captures[l];
        std::vector<Tensor*> params = c.layer->parameters();
        if (!gradOutputs[l].defined()) {
            for (Tensor* p : params) p->mutable_grad() = at::zeros_like(*p);
            continue;
        }
        std::vector<Tensor> grads = c.layer->weightedGradients(c, gradOutputs[l], weights);
        for (std::size_t i = 0; i < params.size(); ++i) params[i]->mutable_grad() = grads[i];
        c.perExampleGrads.clear();  // free the (possibly large) materialised gradients early
    }
    return norms;
}

void privatiseGradients(const std::vector<Tensor*>& params, double noiseStd, double denominator,
                        privacy::MechanismRng& noise) {
    at::NoGradGuard noGrad;
    for (Tensor* p : params) {
        if (!p->grad().defined()) p->mutable_grad() = at::zeros_like(*p);
        Tensor g = p->grad();
        if (noiseStd > 0) {
            // Drawn on the CPU from the secure stream (no GPU generator is a CSPRNG), then moved.
            const bool dbl = p->scalar_type() == at::kDouble;
            Tensor draw = at::empty(p->sizes(), at::TensorOptions().dtype(dbl ? at::kDouble : at::kFloat));
            const auto count = static_cast<std::size_t>(draw.numel());
            if (dbl) noise.fillGaussian(std::span<double>(draw.data_ptr<double>(), count), noiseStd);
            else noise.fillGaussian(std::span<float>(draw.data_ptr<float>(), count), noiseStd);
            g.add_(draw.to(p->device(), p->scalar_type()));
        }
        g.div_(denominator);
    }
}

Tensor binaryLossPerExample(const Tensor& logits, const Tensor& targets) {
    return at::binary_cross_entropy_with_logits(logits.reshape({-1}), targets.to(logits.scalar_type()), {}, {},
                                                at::Reduction::None);
}

Tensor multiclassLossPerExample(const Tensor& logits, const Tensor& targets) {
    return at::nll_loss(at::log_softmax(logits, 1), targets, {}, at::Reduction::None);
}

}  // namespace dpmix::train::detail
