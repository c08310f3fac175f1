#include "engine/train/dirichlet_training.h"

#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/privacy/parameters.h"
#include "engine/train/detail/dirichlet_loss.h"
#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/detail/poisson_sampler.h"

#include <limits>
#include <stdexcept>

namespace dpmix::train {

namespace detail {

at::Tensor asTwoClassLogits(const at::Tensor& logits) { return at::cat({at::zeros_like(logits), logits}, 1); }

at::Tensor dirichletLossPerExample(const at::Tensor& logits, const at::Tensor& targets, double r, double alpha,
                                   privacy::MechanismRng& gammaDraws) {
    at::Tensor s = at::softmax(logits, 1);
    at::Tensor eta = s * r + alpha;
    // Gamma(η, 1) draws from the secure stream on the CPU. The value is the draw; its derivative
    // w.r.t. η is the implicit reparameterisation gradient _standard_gamma_grad(η, draw), which
    // carries ∂/∂logits (the same gradient at::_standard_gamma's backward uses).
    at::Tensor etaCpu = eta.detach().to(at::kCPU, at::kDouble).contiguous();
    at::Tensor drawCpu = at::empty_like(etaCpu);
    const double* shape = etaCpu.data_ptr<double>();
    double* draw = drawCpu.data_ptr<double>();
    for (std::int64_t i = 0; i < etaCpu.numel(); ++i) draw[i] = gammaDraws.gamma(shape[i]);
    at::Tensor sample = drawCpu.to(eta.device(), eta.scalar_type());
    at::Tensor slope = at::_standard_gamma_grad(eta.detach(), sample);
    at::Tensor g = sample + (eta - eta.detach()) * slope;
    // Tiny floor: for α ≥ ~0.1 Gamma draws essentially never underflow, but a log(0) would
    // poison the whole step.
    const double tiny = logits.scalar_type() == at::kDouble ? 1e-300 : 1e-30;
    g = g.clamp_min(tiny);
    at::Tensor logG = g.log();
    return at::logsumexp(logG, 1) - logG.gather(1, targets.unsqueeze(1)).squeeze(1);  // −log(G_y / ΣG)
}

}  // namespace detail

Result<privacy::LedgerEntry> plannedDirichletEntry(const DirichletParams& params, std::int64_t n) {
    const double q = static_cast<double>(params.expectedBatchSize) / static_cast<double>(n);
    const long long steps =
        params.steps > 0 ? params.steps : stepsForEpochs(params.epochs, n, params.expectedBatchSize);
    double r = 0.0;
    if (params.r) {
        r = *params.r;
    } else {
        auto calibrated = privacy::calibrateDirichletR(params.epsilon, params.delta, params.alpha, q, steps);
        if (!calibrated)
            return Error{"Dirichlet mechanism (alpha = " + privacy::formatNumber(params.alpha) +
                         "): no scale r meets the budget: " + calibrated.error().message};
        r = calibrated->r;
    }
    privacy::LedgerEntry e = privacy::dirichletEntry("finetune", params.split, params.alpha, r, q, steps, params.delta);
    privacy::setRandomness(e, params.randomness.mode);
    return e;
}

Result<FinetuneResult> finetuneDirichlet(Model& model, const ImageView& images, std::span<const int> labels,
                                         const DirichletParams& params, privacy::Ledger& ledger,
                                         const ProgressCallback& progress, const CancellationToken& cancel) {
    auto& impl = model.impl();
    const ModelSpec& spec = impl.spec;
    if (auto e = checkFinetuneInputs(spec, images, labels, params.expectedBatchSize, params.trainLastBlocks)) return *e;

    const std::int64_t n = images.count;
    auto planned = plannedDirichletEntry(params, n);
    if (!planned) return planned.error();
    FinetuneResult result;
    result.entry = std::move(planned).value();
    result.steps = result.entry.steps;
    result.q = result.entry.q;
    result.noise = result.entry.dirichletR;
    const long long steps = result.steps;
    const double q = result.q;
    const double r = result.noise;
    ledger.record(result.entry);

    detail::Network& net = impl.network;
    detail::FrozenBlocks frozen(net, params.trainLastBlocks);
    std::vector<at::Tensor*> trainable = net.trainableParameters();
    detail::SgdOptimizer sgd(trainable, params.learningRate);
    detail::AdamOptimizer adam(trainable, params.learningRate);
    privacy::MechanismRng gen(params.randomness, "gamma draws");
    detail::PoissonSampler sampler(n, q, params.randomness);
    result.stepLoss.reserve(static_cast<std::size_t>(steps));

    for (long long t = 0; t < steps; ++t) {
        throwIfCancelled(cancel);
        std::vector<std::int64_t> batch = sampler.next();
        if (batch.empty()) {  // ξ is an average over the realised batch: nothing to average
            result.stepLoss.push_back(std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        at::Tensor x = detail::gatherImages(images, batch, impl.device);
        std::vector<std::int64_t> y(batch.size());
        for (std::size_t i = 0; i < batch.size(); ++i) y[i] = labels[static_cast<std::size_t>(batch[i])];
        at::Tensor target = at::tensor(y, at::kLong).to(impl.device);
        at::Tensor logits = net.forward(x);
        if (spec.outputs == 1) logits = detail::asTwoClassLogits(logits);
        at::Tensor loss = detail::dirichletLossPerExample(logits, target, r, params.alpha, gen).mean();
        detail::zeroGradients(trainable);
        loss.backward();
        if (params.optimizer == OptimizerKind::Sgd)
            sgd.step();
        else
            adam.step();
        result.stepLoss.push_back(loss.item<double>());
        if (t % 10 == 0 || t + 1 == steps)
            report(progress, {"finetune", t + 1, steps, "Dirichlet loss " + std::to_string(result.stepLoss.back())});
    }
    return result;
}

}  // namespace dpmix::train
