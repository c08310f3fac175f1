#include "engine/train/detail/ghost_clipping.h"

#include "engine/train/detail/secure_noise.h"

#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace dpmix::train::detail {

namespace {

// d(Σ_b ℓ_b)/d output of every recorded layer, in one backward pass; rejects shared layers.
std::vector<Tensor> outputGradients(Tape& tape, const Tensor& perExampleLoss, const char* caller) {
    std::set<TrainableLayer*> seen;
    std::vector<Tensor> outputs;
    for (const Capture& c : tape.captures) {
        if (!seen.insert(c.layer).second)
            throw std::logic_error(std::string(caller) + ": layer " + c.layer->name() + " was applied twice");
        outputs.push_back(c.output);
    }
    if (outputs.empty()) return {};
    return torch::autograd::grad({perExampleLoss.sum()}, outputs, {}, /*retain_graph=*/false,
                                 /*create_graph=*/false, /*allow_unused=*/true);
}

}  // namespace

Tensor clipAndSumGradients(Tape& tape, const Tensor& perExampleLoss, double clipNorm) {
    // d(Σ_b ℓ_b)/d output_l: row b only depends on example b, so it is example b's own gradient.
    std::vector<Tensor> gradOutputs = outputGradients(tape, perExampleLoss, "clipAndSumGradients");
    if (gradOutputs.empty()) return at::zeros_like(perExampleLoss);
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


Tensor clipAndSumUserGradients(Tape& tape, const Tensor& perExampleLoss, const Tensor& userOfRow, int64_t users,
                               double clipNorm) {
    const int64_t b = perExampleLoss.size(0);
    if (userOfRow.dim() != 1 || userOfRow.size(0) != b)
        throw std::logic_error("clipAndSumUserGradients: one user per row expected");
    std::vector<Tensor> gradOutputs = outputGradients(tape, perExampleLoss, "clipAndSumUserGradients");
    at::NoGradGuard noGrad;
    const auto real = perExampleLoss.options();
    const Tensor rowUser = userOfRow.to(at::kLong).to(perExampleLoss.device());
    const Tensor rows = at::bincount(rowUser, {}, users).to(real.dtype());
    if (rows.size(0) != users || !rows.gt(0).all().item<bool>())
        throw std::logic_error("clipAndSumUserGradients: every user needs at least one row");
    // mean[u, b] = 1/|u| when row b belongs to user u: mean.mm(perExample) gives every ḡ_u at once.
    Tensor mean = at::zeros({users, b}, real);
    mean.index_put_({rowUser, at::arange(b, rowUser.options())}, rows.index_select(0, rowUser).reciprocal());
    Tensor badRow = at::zeros({b}, real.dtype(at::kBool));
    Tensor squared = at::zeros({users}, real);
    struct ParameterGradient {
        Tensor* parameter;
        Tensor perUser;  // (users, P), or undefined: the layer does not affect the loss
    };
    std::vector<ParameterGradient> parts;
    for (std::size_t l = 0; l < tape.captures.size(); ++l) {
        Capture& c = tape.captures[l];
        std::vector<Tensor*> params = c.layer->parameters();
        if (!gradOutputs[l].defined()) {
            for (Tensor* p : params) parts.push_back({p, {}});
            continue;
        }
        std::vector<Tensor> perExample = c.layer->perExampleGradients(c, gradOutputs[l]);
        for (std::size_t i = 0; i < params.size(); ++i) {
            Tensor flat = perExample[i].reshape({b, -1});
            // A non-finite row is zeroed before the product (0·NaN would reach every user's sum);
            // its user is dropped below.
            const Tensor finite = flat.isfinite().all(1);
            if (!finite.all().item<bool>()) {
                badRow = badRow.logical_or(finite.logical_not());
                flat = flat.masked_fill(finite.logical_not().unsqueeze(1), 0);
            }
            Tensor perUser = mean.mm(flat);
            squared = squared + perUser.pow(2).sum(1);
            parts.push_back({params[i], perUser});
        }
    }
    Tensor norms = squared.clamp_min(0).sqrt();
    Tensor factor = std::isinf(clipNorm) ? at::ones_like(norms) : (clipNorm / norms.clamp_min(1e-12)).clamp_max(1.0);
    const Tensor badUser = at::bincount(rowUser, badRow.to(real.dtype()), users).gt(0);
    factor = at::where(badUser, at::zeros_like(factor), factor);
    norms = at::where(badUser, at::full_like(norms, std::numeric_limits<double>::quiet_NaN()), norms);
    for (const ParameterGradient& part : parts) {
        Tensor& p = *part.parameter;
        p.mutable_grad() = part.perUser.defined() ? factor.unsqueeze(0).mm(part.perUser).reshape(p.sizes())
                                                  : at::zeros_like(p);
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
