#include "engine/psg/detail/gradient_match.h"

#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/optimizer.h"

#include <torch/csrc/autograd/autograd.h>

#include <stdexcept>
#include <string>

namespace dpmix::psg::detail {
namespace {

std::string shapeText(const Tensor& t) {
    std::string out;
    for (auto d : t.sizes()) out += (out.empty() ? "" : "x") + std::to_string(d);
    return out.empty() ? "scalar" : out;
}

}  // namespace

Tensor matchDistance(const std::vector<Tensor>& synthetic, const std::vector<Tensor>& real) {
    if (synthetic.size() != real.size())
        throw std::invalid_argument("matchDistance: " + std::to_string(synthetic.size()) + " synthetic and " +
                                    std::to_string(real.size()) + " real gradients");
    Tensor total;
    for (std::size_t i = 0; i < synthetic.size(); ++i) {
        const Tensor& s = synthetic[i];
        const Tensor& r = real[i];
        if (!s.sizes().equals(r.sizes()))
            throw std::invalid_argument("matchDistance: gradient " + std::to_string(i) + " differs in shape (" +
                                        shapeText(s) + " synthetic, " + shapeText(r) + " real)");
        if (s.dim() <= 1) continue;  // biases and normalisation weights: no rows to compare
        const Tensor gs = s.reshape({s.size(0), -1});
        const Tensor gr = r.reshape({r.size(0), -1}).to(s.scalar_type());
        const Tensor cosine = (gs * gr).sum(-1) / (gs.norm(2, {-1}) * gr.norm(2, {-1}) + 1e-6);
        const Tensor d = (1 - cosine).sum();
        total = total.defined() ? total + d : d;
    }
    if (!total.defined()) {
        const auto options = synthetic.empty() ? at::TensorOptions().dtype(at::kFloat) : synthetic.front().options();
        return at::zeros({}, options);
    }
    return total;
}

std::vector<Tensor> privateRealGradient(train::detail::Network& net, const Tensor& images, const Tensor& labels,
                                        double clipNorm, double noiseStd, double denominator,
                                        privacy::MechanismRng& noise) {
    std::vector<Tensor*> params = net.parameters();
    train::detail::zeroGradients(params);
    if (images.defined() && images.size(0) > 0) {
        train::detail::Tape tape;
        const Tensor logits = net.forward(images, &tape);
        const Tensor perExample = train::detail::multiclassLossPerExample(logits, labels);
        (void)train::detail::clipAndSumGradients(tape, perExample, clipNorm);
    }
    train::detail::privatiseGradients(params, noiseStd, clipNorm, denominator, noise);
    std::vector<Tensor> out;
    out.reserve(params.size());
    // Shaped as its parameter explicitly: on the lazy-tensor device (tst_device_guard) a clone of
    // the clipped gradient, a reshaped view, comes back with the view's base shape.
    for (Tensor* p : params) out.push_back(p->grad().detach().clone().reshape(p->sizes()));
    train::detail::zeroGradients(params);
    return out;
}

std::vector<Tensor> syntheticGradient(train::detail::Network& net, const Tensor& set, const Tensor& labels) {
    std::vector<Tensor> params;
    for (Tensor* p : net.parameters()) params.push_back(*p);
    const Tensor loss = at::cross_entropy_loss(net.forward(set, nullptr), labels);
    return torch::autograd::grad({loss}, params, {}, /*retain_graph=*/true, /*create_graph=*/true);
}

}  // namespace dpmix::psg::detail
