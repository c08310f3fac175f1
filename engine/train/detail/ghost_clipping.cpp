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

// Zeroes rows `bad` (bool (B)) of a floating-point tensor whose first dimension is the batch.
void zeroRows(Tensor& t, const Tensor& bad) {
    const int64_t b = bad.size(0);
    if (!t.defined() || t.dim() == 0 || t.size(0) != b || !t.is_floating_point()) return;
    std::vector<int64_t> shape(static_cast<std::size_t>(t.dim()), 1);
    shape[0] = b;
    t = t.masked_fill(bad.reshape(shape), 0);
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
    Tensor weights = std::isinf(clipNorm) ? at::ones_like(norms) : (clipNorm / norms.clamp_min(1e-12)).clamp_max(1.0);
    // An example whose gradient is not finite contributes nothing: weight 0 and its rows zeroed
    // (0·inf would still be NaN), so a NaN never reaches the model only when that example is
    // sampled — a membership signal (docs/PRIVACY.md, "Non-finite gradients").
    const Tensor finite = norms.isfinite();
    if (!finite.all().item<bool>()) {
        weights = at::where(finite, weights, at::zeros_like(weights));
        const Tensor bad = finite.logical_not();
        for (std::size_t l = 0; l < tape.captures.size(); ++l) {
            Capture& c = tape.captures[l];
            zeroRows(c.input, bad);
            zeroRows(gradOutputs[l], bad);
            for (Tensor& g : c.perExampleGrads) zeroRows(g, bad);
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

namespace {

// Each parameter's gradient Σ_u factor_u ḡ_u: from the per-user sums where a layer materialised
// them (a dropped user's zeroed), else from (a, w·g) with the rows' weights.
void setUserWeightedGradients(Tape& tape, const std::vector<Tensor>& gradOutputs, const Tensor& userWeight,
                              const Tensor& rowWeight, const Tensor& dropped, bool anyDropped) {
    for (std::size_t l = 0; l < tape.captures.size(); ++l) {
        Capture& c = tape.captures[l];
        std::vector<Tensor*> params = c.layer->parameters();
        if (!gradOutputs[l].defined()) {
            for (Tensor* p : params) p->mutable_grad() = at::zeros_like(*p);
            continue;
        }
        if (c.perUserGrads.empty()) {
            std::vector<Tensor> grads = c.layer->weightedGradients(c, gradOutputs[l], rowWeight);
            for (std::size_t i = 0; i < params.size(); ++i) params[i]->mutable_grad() = grads[i];
        } else {
            for (std::size_t i = 0; i < params.size(); ++i) {
                Tensor perUser = c.perUserGrads[i];
                if (anyDropped) perUser = perUser.masked_fill(dropped.unsqueeze(1), 0);  // 0·∞ would be NaN
                params[i]->mutable_grad() = userWeight.unsqueeze(0).mm(perUser).reshape(params[i]->sizes());
            }
        }
        c.perUserGrads.clear();
        c.perExampleGrads.clear();
    }
}

}  // namespace

Tensor clipAndSumUserGradients(Tape& tape, const Tensor& perExampleLoss, const Tensor& userOfRow, int64_t users,
                               double clipNorm) {
    const int64_t b = perExampleLoss.size(0);
    if (userOfRow.dim() != 1 || userOfRow.size(0) != b)
        throw std::logic_error("clipAndSumUserGradients: one user per row expected");
    std::vector<Tensor> gradOutputs = outputGradients(tape, perExampleLoss, "clipAndSumUserGradients");
    at::NoGradGuard noGrad;
    const auto real = perExampleLoss.options();
    const Tensor rowUser = userOfRow.to(at::kLong).to(perExampleLoss.device());
    const Tensor rowCount = at::bincount(rowUser, {}, users);
    if (rowCount.size(0) != users || !rowCount.gt(0).all().item<bool>())
        throw std::logic_error("clipAndSumUserGradients: every user needs at least one row");
    if (users == 0) {  // an empty batch: nothing to clip
        for (Capture& c : tape.captures)
            for (Tensor* p : c.layer->parameters()) p->mutable_grad() = at::zeros_like(*p);
        return at::zeros({0}, real);
    }
    const UserRows groups(rowUser, rowCount);
    // Everything below works on user sums S_u = Σ_{b∈u} ∇ℓ_b (the unscaled g); ḡ_u = S_u / |u|.
    auto userSquaredNorms = [&] {
        Tensor squared = at::zeros({users}, real);
        for (std::size_t l = 0; l < tape.captures.size(); ++l) {
            Capture& c = tape.captures[l];
            c.perUserGrads.clear();
            if (gradOutputs[l].defined()) squared = squared + c.layer->perUserSquaredNorms(c, gradOutputs[l], groups);
        }
        return squared;
    };
    Tensor squared = userSquaredNorms();
    Tensor badUser = at::zeros({users}, real.dtype(at::kBool));
    const bool someNonFinite = !squared.isfinite().all().item<bool>();
    if (someNonFinite) {
        // Only when some user's norm is not finite (a non-finite row makes its user's norm
        // non-finite on every route): find the rows whose own gradient is not finite — the
        // criterion of clipAndSumGradients —, zero them (0·NaN would reach the other users' sums
        // and the weighted products) and compute the users' norms again.
        Tensor rowSquared = at::zeros({b}, real);
        for (std::size_t l = 0; l < tape.captures.size(); ++l) {
            Capture& c = tape.captures[l];
            if (!gradOutputs[l].defined()) continue;
            rowSquared = rowSquared + c.layer->perExampleSquaredNorms(c, gradOutputs[l]);
            c.perExampleGrads.clear();
        }
        const Tensor badRow = rowSquared.isfinite().logical_not();
        if (badRow.any().item<bool>()) {
            badUser = at::bincount(rowUser, badRow.to(real.dtype()), users).gt(0);
            for (std::size_t l = 0; l < tape.captures.size(); ++l) {
                zeroRows(tape.captures[l].input, badRow);
                zeroRows(gradOutputs[l], badRow);
            }
            squared = userSquaredNorms();
        }
    }
    const Tensor mean = rowCount.to(real.dtype()).reciprocal();  // 1/|u|
    Tensor norms = squared.clamp_min(0).sqrt() * mean;
    Tensor factor = std::isinf(clipNorm) ? at::ones_like(norms) : (clipNorm / norms.clamp_min(1e-12)).clamp_max(1.0);
    // A user with a non-finite row contributes nothing and reports NaN; one whose finite rows'
    // norm overflowed contributes nothing too (factor C/∞ = 0).
    const Tensor dropped = badUser.logical_or(norms.isfinite().logical_not());
    factor = at::where(dropped, at::zeros_like(factor), factor);
    norms = at::where(badUser, at::full_like(norms, std::numeric_limits<double>::quiet_NaN()), norms);
    // Book-keeping: Σ_u factor_u ḡ_u = Σ_b (factor_u(b) / |u(b)|) ∇ℓ_b, from the per-user sums
    // where a layer materialised them, else from (a, w·g) like clipAndSumGradients.
    const Tensor userWeight = factor * mean;
    const Tensor rowWeight = userWeight.index_select(0, rowUser);
    const bool anyDropped = someNonFinite && dropped.any().item<bool>();
    setUserWeightedGradients(tape, gradOutputs, userWeight, rowWeight, dropped, anyDropped);
    return norms;
}

void privatiseGradients(const std::vector<Tensor*>& params, double noiseStd, double sensitivity, double denominator,
                        privacy::MechanismRng& noise) {
    at::NoGradGuard noGrad;
    // A sensitivity that is not a positive finite number leaves z unknown: the double sampler.
    const bool floatNoiseIsSafe =
        std::isfinite(sensitivity) && sensitivity > 0 && noiseStd >= kMinFloatNoiseMultiplier * sensitivity;
    for (Tensor* p : params) {
        if (!p->grad().defined()) p->mutable_grad() = at::zeros_like(*p);
        Tensor g = p->grad();
        if (noiseStd > 0) {
            // Drawn on the CPU from the secure stream (no GPU generator is a CSPRNG), then moved.
            const at::ScalarType drawn =
                p->scalar_type() == at::kFloat && !floatNoiseIsSafe ? at::kDouble : p->scalar_type();
            g.add_(secureGaussian(noise, p->sizes(), drawn).to(p->device(), p->scalar_type()), noiseStd);
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
