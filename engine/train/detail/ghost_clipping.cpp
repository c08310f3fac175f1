#include "engine/train/detail/ghost_clipping.h"

#include "engine/train/detail/secure_noise.h"

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
    // An example whose gradient is not finite contributes nothing: weight 0 and its rows zeroed
    // (0·inf would still be NaN), so a NaN never reaches the model only when that example is
    // sampled — a membership signal (docs/PRIVACY.md, "Non-finite gradients").
    const Tensor finite = norms.isfinite();
    if (!finite.all().item<bool>()) {
        weights = at::where(finite, weights, at::zeros_like(weights));
        const int64_t b = norms.size(0);
        auto zeroRows = [&](Tensor& t) {
            if (!t.defined() || t.dim() == 0 || t.size(0) != b || !t.is_floating_point()) return;
            std::vector<int64_t> shape(static_cast<std::size_t>(t.dim()), 1);
            shape[0] = b;
            t = t.masked_fill(finite.logical_not().reshape(shape), 0);
        };
        for (std::size_t l = 0; l < tape.captures.size(); ++l) {
            Capture& c = tape.captures[l];
            zeroRows(c.input);
            zeroRows(gradOutputs[l]);
            for (Tensor& g : c.perExampleGrads) zeroRows(g);
        }
    }
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
            g.add_(secureGaussian(noise, p->sizes(), p->scalar_type()).to(p->device()), noiseStd);
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
