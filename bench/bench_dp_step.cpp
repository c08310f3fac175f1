// DP-SGD step vs plain SGD step on the two reference models (goal: docs/BENCHMARKS.md), in one run:
//   CNN: Conv(1→32,3×3,pad1)-ReLU-MaxPool2 → Conv(32→64,3×3,pad1)-ReLU-MaxPool2
//        → Linear(3136→128)-ReLU → Linear(128→10), 28×28×1
//   MLP: 784-512-512-10
// Batch 256, 2 threads by default. The DP step is the real engine path: taped forward,
// vectorised per-example clipping (detail/ghost_clipping), Gaussian noise, SGD update.
// With --proxy it instead times trainProxy (docs/BENCHMARKS.md): the demo small CNN, k = 14 sources,
// on 60,000 random 28×28 images (timing does not depend on the pixel values).
// With --model transformer it times the demo causal LM instead (vocabulary 8000, 2 blocks,
// width 128, 4 heads, context 64; B windows of random tokens; next-token loss per window), all
// parameters trainable and only the last two blocks + head (the paper's LM fine-tuning).
// The DP step is timed with its noise from each generator: the engine's secure noise in secret
// mode (AES-256-CTR where the CPU has AES instructions, else ChaCha20) and in seeded mode
// (ChaCha20), and torch's mt19937 randn (the engine's generator before secret randomness),
// interleaved in one run; so is the secure noise alone (ns per parameter, secret and seeded),
// drawn per parameter tensor as privatiseGradients draws it. DP/plain is given for the medians
// and for the fastest steps.
// With --noise P it times the noise alone for P parameters: the key streams alone (16 bytes per
// value, float32's share), the float32 and double samplers (secret and seeded) and torch's randn.
// --model resnet18: ResNet-18 (width 64,
// GroupNorm) on 28×28. --device cuda runs the model steps on the GPU (docs/GPU.md): inputs and
// parameters live there, each timed step ends with a device synchronisation, and the secure noise
// is drawn on the CPU and copied over, as in the engine.
// With --user-level K it times user-level DP-SGD (clipAndSumUserGradients, users of K consecutive
// rows) beside the example-level DP step on the same batch of images, and the former user-level
// clipping (per-example gradients materialised and averaged by a users × B matrix; kept here for
// timing only; docs/TRAINING.md, "User-level clipping"), interleaved; --user-reference 0 leaves the last one out.
// Usage: bench_dp_step [--threads N] [--batch B] [--steps S] [--model demo|resnet18|transformer] [--device D]
//                      [--proxy EPOCHS] [--noise P] [--user-level K [--user-reference 0|1]] [--phases 1]
#include "engine/privacy/mechanism_random.h"
#include "engine/runtime/training_process.h"
#include "engine/train/detail/causal_lm_impl.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/network.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/detail/secure_noise.h"
#include "engine/train/proxy.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

using namespace dpmix::train;
using namespace dpmix::train::detail;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// The device the model steps run on (--device); CPU unless asked.
at::Device gDevice = at::kCPU;

// Waits until the device has finished the work queued so far (a one-element copy to the host
// blocks on the stream), so a step's time includes its GPU work.
void syncDevice() {
    if (!gDevice.is_cpu()) (void)at::zeros({1}, at::TensorOptions().device(gDevice)).to(at::kCPU);
}

struct Timing {
    double plainMs, dpMs;                            // medians (DP: secret noise, the engine's default)
    double plainMinMs, dpMinMs;                      // fastest step: less sensitive to other load on the machine
    double seededMs, seededMinMs;                    // DP step, seeded ChaCha20 noise
    double torchMs, torchMinMs;                      // DP step, torch mt19937 randn noise (not secure)
    double noiseNs = 0, noiseMinNs = 0;              // the secret noise alone, ns per parameter
    double seededNoiseNs = 0, seededNoiseMinNs = 0;  // the seeded noise alone, ns per parameter
};

// The secure noise alone, as privatiseGradients draws it (one draw per parameter tensor, on the
// CPU); milliseconds.
double timeNoise(const std::vector<Tensor*>& params, dpmix::privacy::MechanismRng& rng) {
    at::NoGradGuard noGrad;
    const auto t0 = Clock::now();
    for (Tensor* p : params) (void)secureGaussian(rng, p->sizes(), p->scalar_type());
    return msSince(t0);
}

// The noise of the pre-secret-randomness engine: torch's CPU generator, for comparison only.
void privatiseWithTorchRandn(const std::vector<Tensor*>& params, double noiseStd, double denominator,
                             at::Generator& gen) {
    at::NoGradGuard noGrad;
    for (Tensor* p : params) {
        if (!p->grad().defined()) p->mutable_grad() = at::zeros_like(*p);
        p->grad()
            .add_(at::randn(p->sizes(), gen, at::TensorOptions().dtype(p->scalar_type())).to(p->device()), noiseStd)
            .div_(denominator);
    }
}

// Times plain, DP (secret), DP (seeded) and DP (torch randn) steps, and the secret and seeded
// noise alone, interleaved.
template <typename Plain, typename Dp>
Timing timeSteps(int steps, Plain&& plainStep, Dp&& dpStep) {
    using dpmix::privacy::MechanismRng;
    using dpmix::privacy::RandomnessSource;
    MechanismRng secret(RandomnessSource::secret(), "noise");
    MechanismRng seeded(RandomnessSource::seeded(1, "bench"), "noise");
    at::Generator torchGen = at::make_generator<at::CPUGeneratorImpl>(5);
    std::vector<Tensor*> noised;  // the parameters the DP step noises, for timing the noise alone
    enum Kind { Secret, Seeded, Torch };
    auto dp = [&](Kind kind) {
        dpStep([&](const std::vector<Tensor*>& params, double noiseStd, double denominator) {
            noised = params;
            if (kind == Torch) privatiseWithTorchRandn(params, noiseStd, denominator, torchGen);
            // Sensitivity = noiseStd: noise multiplier 1, the float32 sampler dpmix's calibrated
            // runs (z ≈ 1.6–2) use.
            else
                privatiseGradients(params, noiseStd, noiseStd, denominator, kind == Secret ? secret : seeded);
        });
    };
    for (int i = 0; i < 3; ++i) {  // warm-up: allocator pools, OpenBLAS threads, CUDA kernels
        plainStep();
        dp(Secret);
        dp(Torch);
    }
    syncDevice();
    std::int64_t count = 0;
    for (Tensor* p : noised) count += p->numel();
    std::vector<double> plain, dpSecret, dpSeeded, dpTorch, noiseSecret, noiseSeeded;
    for (int i = 0; i < steps; ++i) {  // interleaved, so load changes hit all alike
        auto t0 = Clock::now();
        plainStep();
        syncDevice();
        plain.push_back(msSince(t0));
        for (auto [kind, out] :
             {std::pair{Secret, &dpSecret}, std::pair{Seeded, &dpSeeded}, std::pair{Torch, &dpTorch}}) {
            t0 = Clock::now();
            dp(kind);
            syncDevice();
            out->push_back(msSince(t0));
        }
        noiseSecret.push_back(timeNoise(noised, secret) * 1e6 / static_cast<double>(count));
        noiseSeeded.push_back(timeNoise(noised, seeded) * 1e6 / static_cast<double>(count));
    }
    return {median(plain),       median(dpSecret),     minimum(plain),      minimum(dpSecret),
            median(dpSeeded),    minimum(dpSeeded),    median(dpTorch),     minimum(dpTorch),
            median(noiseSecret), minimum(noiseSecret), median(noiseSeeded), minimum(noiseSeeded)};
}

Timing measure(const ModelSpec& spec, int batch, int steps) {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(1);
    Network net = buildNetworkOn(spec, gen, gDevice);
    std::vector<Tensor*> params = net.trainableParameters();
    SgdOptimizer opt(params, 0.01);
    Tensor x = at::rand({batch, spec.channels, spec.height, spec.width}, gen).to(gDevice);
    Tensor y = at::randint(0, spec.outputs, {batch}, gen, at::TensorOptions().dtype(at::kLong)).to(gDevice);

    auto plainStep = [&] {
        zeroGradients(params);
        Tensor loss = at::nll_loss(at::log_softmax(net.forward(x), 1), y);
        loss.backward();
        opt.step();
    };
    auto dpStep = [&](auto&& privatise) {
        Tape tape;
        Tensor perExample = multiclassLossPerExample(net.forward(x, &tape), y);
        clipAndSumGradients(tape, perExample, 1.0);
        privatise(params, 1.0 * 1.0, static_cast<double>(batch));
        opt.step();
    };
    return timeSteps(steps, plainStep, dpStep);
}

Timing measureTransformer(const TransformerSpec& spec, int batch, int steps, int lastBlocks) {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(1);
    Network net = buildCausalLm(spec, gen);
    if (!gDevice.is_cpu()) {
        at::NoGradGuard noGrad;
        for (Tensor* p : net.parameters()) *p = p->to(gDevice).set_requires_grad(true);
    }
    FrozenBlocks frozen(net, lastBlocks);
    std::vector<Tensor*> params = net.trainableParameters();
    SgdOptimizer opt(params, 0.01);
    std::vector<std::vector<std::int32_t>> streams(static_cast<std::size_t>(batch));
    std::mt19937 rng(4);
    for (auto& s : streams)
        for (int t = 0; t <= spec.context; ++t)
            s.push_back(static_cast<std::int32_t>(rng() % static_cast<unsigned>(spec.vocabulary)));
    std::vector<std::span<const std::int32_t>> spans(streams.begin(), streams.end());
    WindowBatch wb = makeWindows(spans, std::vector<std::int64_t>(spans.size(), 0), spec.context, gDevice);
    auto plainStep = [&] {
        zeroGradients(params);
        windowLoss(net.forward(wb.inputs), wb).sum().backward();
        opt.step();
    };
    auto dpStep = [&](auto&& privatise) {
        Tape tape;
        clipAndSumGradients(tape, windowLoss(net.forward(wb.inputs, &tape), wb), 1.0);
        privatise(params, 1.0, static_cast<double>(batch));
        opt.step();
    };
    return timeSteps(steps, plainStep, dpStep);
}

// User-level clipping as the engine did it before the grouped norms (docs/TRAINING.md, "User-level
// clipping"), for timing only: every
// layer's per-example gradients materialised (B × P floats) and averaged within users by a
// users × B matrix product.
Tensor materialisedUserClipping(Tape& tape, const Tensor& perExampleLoss, const Tensor& userOfRow, int64_t users,
                                double clipNorm) {
    const int64_t b = perExampleLoss.size(0);
    std::vector<Tensor> outputs;
    for (const Capture& c : tape.captures) outputs.push_back(c.output);
    std::vector<Tensor> gradOutputs = torch::autograd::grad({perExampleLoss.sum()}, outputs, {}, false, false, true);
    at::NoGradGuard noGrad;
    const auto real = perExampleLoss.options();
    const Tensor rowUser = userOfRow.to(at::kLong).to(perExampleLoss.device());
    const Tensor rows = at::bincount(rowUser, {}, users).to(real.dtype());
    Tensor mean = at::zeros({users, b}, real);
    mean.index_put_({rowUser, at::arange(b, rowUser.options())}, rows.index_select(0, rowUser).reciprocal());
    Tensor badRow = at::zeros({b}, real.dtype(at::kBool));
    Tensor squared = at::zeros({users}, real);
    std::vector<std::pair<Tensor*, Tensor>> parts;
    for (std::size_t l = 0; l < tape.captures.size(); ++l) {
        Capture& c = tape.captures[l];
        std::vector<Tensor*> params = c.layer->parameters();
        if (!gradOutputs[l].defined()) {
            for (Tensor* p : params) parts.emplace_back(p, Tensor());
            continue;
        }
        std::vector<Tensor> perExample = c.layer->perExampleGradients(c, gradOutputs[l]);
        for (std::size_t i = 0; i < params.size(); ++i) {
            Tensor flat = perExample[i].reshape({b, -1});
            const Tensor finite = flat.isfinite().all(1);
            if (!finite.all().item<bool>()) {
                badRow = badRow.logical_or(finite.logical_not());
                flat = flat.masked_fill(finite.logical_not().unsqueeze(1), 0);
            }
            Tensor perUser = mean.mm(flat);
            squared = squared + perUser.pow(2).sum(1);
            parts.emplace_back(params[i], perUser);
        }
    }
    Tensor norms = squared.clamp_min(0).sqrt();
    Tensor factor = (clipNorm / norms.clamp_min(1e-12)).clamp_max(1.0);
    const Tensor badUser = at::bincount(rowUser, badRow.to(real.dtype()), users).gt(0);
    factor = at::where(badUser, at::zeros_like(factor), factor);
    for (auto& [p, perUser] : parts)
        p->mutable_grad() =
            perUser.defined() ? factor.unsqueeze(0).mm(perUser).reshape(p->sizes()) : at::zeros_like(*p);
    return norms;
}

// --user-level K: the example-level DP step, the user-level DP step (users of K consecutive rows,
// the last one possibly smaller) and, with `reference`, the user-level step of before (above), on
// the same batch of images, interleaved; secret noise for all. Prints median (fastest) per step.
void measureUserLevel(const char* name, const ModelSpec& spec, int batch, int steps, int rowsPerUser, bool reference) {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(1);
    Network net = buildNetworkOn(spec, gen, gDevice);
    std::vector<Tensor*> params = net.trainableParameters();
    SgdOptimizer opt(params, 0.01);
    Tensor x = at::rand({batch, spec.channels, spec.height, spec.width}, gen).to(gDevice);
    Tensor y = at::randint(0, spec.outputs, {batch}, gen, at::TensorOptions().dtype(at::kLong)).to(gDevice);
    const int64_t users = (batch + rowsPerUser - 1) / rowsPerUser;
    const Tensor rowUser =
        at::arange(batch, at::TensorOptions().dtype(at::kLong)).div(rowsPerUser, "floor").to(gDevice);
    dpmix::privacy::MechanismRng secret(dpmix::privacy::RandomnessSource::secret(), "noise");
    enum Kind { Example, User, Reference };
    auto step = [&](Kind kind) {
        Tape tape;
        Tensor perExample = multiclassLossPerExample(net.forward(x, &tape), y);
        if (kind == Example)
            clipAndSumGradients(tape, perExample, 1.0);
        else if (kind == User)
            clipAndSumUserGradients(tape, perExample, rowUser, users, 1.0);
        else
            materialisedUserClipping(tape, perExample, rowUser, users, 1.0);
        privatiseGradients(params, 1.0, 1.0, static_cast<double>(kind == Example ? batch : users), secret);
        opt.step();
    };
    std::vector<Kind> kinds{Example, User};
    if (reference) kinds.push_back(Reference);
    for (int i = 0; i < 2; ++i)
        for (Kind k : kinds) step(k);
    syncDevice();
    std::vector<std::vector<double>> ms(kinds.size());
    for (int i = 0; i < steps; ++i) {  // interleaved, so load changes hit all alike
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            auto t0 = Clock::now();
            step(kinds[k]);
            syncDevice();
            ms[k].push_back(msSince(t0));
        }
    }
    std::printf("%-24s %8.1f (%6.1f) %8.1f (%6.1f) %6.2f (%4.2f)", name, median(ms[0]), minimum(ms[0]), median(ms[1]),
                minimum(ms[1]), median(ms[1]) / median(ms[0]), minimum(ms[1]) / minimum(ms[0]));
    if (reference)
        std::printf(" %8.1f (%7.1f) %6.1f (%4.1f)", median(ms[2]), minimum(ms[2]), median(ms[2]) / median(ms[1]),
                    minimum(ms[2]) / minimum(ms[1]));
    std::printf("   ms median (fastest)\n");
}

double matmulMs() {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(2);
    Tensor a = at::rand({1024, 1024}, gen), b = at::rand({1024, 1024}, gen);
    a.mm(b);
    auto t0 = Clock::now();
    a.mm(b);
    return msSince(t0);
}

// The noise alone for `count` parameters, interleaved, median (fastest) of `repeats`, in ns per
// parameter: each key stream alone (16 bytes per value — float32's four 32-bit uniforms — on one
// thread), the float32 sampler in secret and seeded mode, the double sampler, torch's randn.
void measureNoise(std::int64_t count, int repeats) {
    using dpmix::privacy::KeyStreamKind;
    using dpmix::privacy::MechanismRng;
    using dpmix::privacy::RandomnessSource;
    MechanismRng secret(RandomnessSource::secret(), "noise"), seeded(RandomnessSource::seeded(1, "bench"), "noise");
    MechanismRng aes(RandomnessSource::secret(), "noise", KeyStreamKind::Aes256Ctr);
    MechanismRng chacha(RandomnessSource::secret(), "noise", KeyStreamKind::ChaCha20);
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(7);
    const std::uint64_t blocks = static_cast<std::uint64_t>(count) * 16 / 64 + 1;
    std::vector<unsigned char> stream(blocks * 64);
    const double perParam = 1e6 / static_cast<double>(count);
    std::vector<std::pair<const char*, std::function<void()>>> kinds{
        {"AES-256-CTR key stream", [&] { aes.reserveKeyStream(blocks).write(0, blocks, stream.data()); }},
        {"ChaCha20 key stream", [&] { chacha.reserveKeyStream(blocks).write(0, blocks, stream.data()); }},
        {"float32 noise, secret", [&] { (void)secureGaussian(secret, {count}, at::kFloat); }},
        {"float32 noise, seeded", [&] { (void)secureGaussian(seeded, {count}, at::kFloat); }},
        {"double noise, secret", [&] { (void)secureGaussian(secret, {count}, at::kDouble); }},
        {"torch randn (float32)", [&] { (void)at::randn({count}, gen, at::TensorOptions().dtype(at::kFloat)); }}};
    std::vector<std::vector<double>> ns(kinds.size());
    for (int r = 0; r < repeats; ++r) {
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            const auto t0 = Clock::now();
            kinds[k].second();
            ns[k].push_back(msSince(t0) * perParam);
        }
    }
    std::printf("noise for %lld parameters, %d threads (secret key stream: %s), ns per parameter, median (fastest):\n",
                static_cast<long long>(count), at::get_num_threads(), toString(secret.keyStream()).c_str());
    for (std::size_t k = 0; k < kinds.size(); ++k)
        std::printf("  %-24s %7.2f (%6.2f)\n", kinds[k].first, median(ns[k]), minimum(ns[k]));
}

// Median (fastest) per step: plain, DP with secret / seeded noise, DP with torch randn; DP/plain
// with the secret noise; the secret and the seeded noise alone per parameter.
void printHeader(const char* first) {
    std::printf("%-24s %18s %18s %18s %18s %14s %16s %16s\n", first, "plain", "DP secret", "DP seeded",
                "DP torch randn", "secret/plain", "noise secret", "noise seeded");
}

void printRow(const char* name, const Timing& t) {
    std::printf(
        "%-24s %8.1f (%6.1f) %8.1f (%6.1f) %8.1f (%6.1f) %8.1f (%6.1f) %6.2f (%5.2f) %7.2f (%6.2f) "
        "%7.2f (%6.2f)   ms, ns/param: median (fastest)\n",
        name, t.plainMs, t.plainMinMs, t.dpMs, t.dpMinMs, t.seededMs, t.seededMinMs, t.torchMs, t.torchMinMs,
        t.dpMs / t.plainMs, t.dpMinMs / t.plainMinMs, t.noiseNs, t.noiseMinNs, t.seededNoiseNs, t.seededNoiseMinNs);
}

// --proxy: a small CNN proxy trained on random images and its predictions, timed.
void measureProxyTraining(int proxyEpochs, int batch, int threads) {
    const int n = 60000, k = 14;
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(3);
    at::Tensor x = at::rand({n, 1, 28, 28}, gen).contiguous();
    at::Tensor y = at::randint(0, 2, {n, k}, gen).to(at::kFloat).contiguous();
    std::vector<float> pixels(x.data_ptr<float>(), x.data_ptr<float>() + x.numel());
    std::vector<float> labels(y.data_ptr<float>(), y.data_ptr<float>() + y.numel());
    ModelSpec spec = ModelSpecBuilder().kind(ModelKind::SmallCnn).build().value();
    SupervisedParams params = SupervisedParamsBuilder().epochs(proxyEpochs).batchSize(batch).build().value();
    auto t0 = Clock::now();
    auto proxy = trainProxy(ImageView{pixels, n, 1, 28, 28}, labels, k, spec, params);
    const double trainS = msSince(t0) / 1000.0;
    t0 = Clock::now();
    auto p = predictProxy(proxy.value(), ImageView{pixels, n, 1, 28, 28});
    std::printf(
        "proxy: small CNN, %d sources, %d images, %d epochs, batch %d, %d threads: train %.1f s, "
        "predict P on %d images %.1f s\n",
        k, n, proxyEpochs, batch, threads, trainS, n, msSince(t0) / 1000.0);
}

// --phases: the DP step of each model cut into its phases (taped forward, the backward pass to the
// layers' outputs, each layer's per-example norms and reweighted gradients, the secret noise, the
// update) beside the plain step's forward and backward, ms, median (fastest) of `steps`. Says
// where the DP step's extra time goes (docs/BENCHMARKS.md).
void measurePhases(const char* name, const ModelSpec& spec, int batch, int steps) {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(1);
    Network net = buildNetworkOn(spec, gen, gDevice);
    std::vector<Tensor*> params = net.trainableParameters();
    SgdOptimizer opt(params, 0.01);
    dpmix::privacy::MechanismRng secret(dpmix::privacy::RandomnessSource::secret(), "noise");
    Tensor x = at::rand({batch, spec.channels, spec.height, spec.width}, gen).to(gDevice);
    Tensor y = at::randint(0, spec.outputs, {batch}, gen, at::TensorOptions().dtype(at::kLong)).to(gDevice);
    std::map<std::string, std::vector<double>> ms;
    std::vector<std::string> order;
    auto lap = [&](const std::string& phase, Clock::time_point& t0) {
        syncDevice();
        if (!ms.count(phase)) order.push_back(phase);
        if (!ms.count(phase) || ms[phase].size() < static_cast<std::size_t>(steps) + 3)
            ms[phase].push_back(msSince(t0));
        t0 = Clock::now();
    };
    for (int i = 0; i < steps + 3; ++i) {  // the first three are warm-up, dropped below
        auto t0 = Clock::now();
        zeroGradients(params);
        Tensor loss = at::nll_loss(at::log_softmax(net.forward(x), 1), y);
        lap("plain: forward", t0);
        loss.backward();
        lap("plain: backward", t0);
        opt.step();
        lap("plain: update", t0);
        Tape tape;
        Tensor perExample = multiclassLossPerExample(net.forward(x, &tape), y);
        lap("DP: taped forward", t0);
        std::vector<Tensor> outputs;
        for (const Capture& c : tape.captures) outputs.push_back(c.output);
        std::vector<Tensor> gradOutputs = torch::autograd::grad({perExample.sum()}, outputs, {}, false, false, true);
        lap("DP: backward to layer outputs", t0);
        at::NoGradGuard noGrad;
        Tensor squared = at::zeros_like(perExample);
        for (std::size_t l = 0; l < tape.captures.size(); ++l) {
            squared = squared + tape.captures[l].layer->perExampleSquaredNorms(tape.captures[l], gradOutputs[l]);
            lap("DP: norms, layer " + std::to_string(l) + " " + tape.captures[l].layer->name(), t0);
        }
        Tensor weights = (1.0 / squared.sqrt().clamp_min(1e-12)).clamp_max(1.0);
        (void)weights.isfinite().all().item<bool>();  // the engine's finiteness check
        lap("DP: clip factors", t0);
        for (std::size_t l = 0; l < tape.captures.size(); ++l) {
            Capture& c = tape.captures[l];
            std::vector<Tensor*> layerParams = c.layer->parameters();
            std::vector<Tensor> grads = c.layer->weightedGradients(c, gradOutputs[l], weights);
            for (std::size_t j = 0; j < layerParams.size(); ++j) layerParams[j]->mutable_grad() = grads[j];
            c.perExampleGrads.clear();
            lap("DP: clipped sum, layer " + std::to_string(l) + " " + c.layer->name(), t0);
        }
        privatiseGradients(params, 1.0, 1.0, static_cast<double>(batch), secret);
        lap("DP: secret noise", t0);
        opt.step();
        lap("DP: update", t0);
    }
    std::printf("%s, batch %d: phases, ms, median (fastest) of %d steps\n", name, batch, steps);
    double plainSum = 0, dpSum = 0;
    for (const std::string& phase : order) {
        std::vector<double> v(ms[phase].begin() + 3, ms[phase].end());
        std::printf("  %-44s %8.2f (%6.2f)\n", phase.c_str(), median(v), minimum(v));
        (phase.rfind("plain", 0) == 0 ? plainSum : dpSum) += median(v);
    }
    std::printf("  %-44s %8.2f\n  %-44s %8.2f\n", "plain step, sum of medians", plainSum, "DP step, sum of medians",
                dpSum);
}

// The models to time: the CNN and the MLP, or with --model demo the demo's models as the pipeline
// builds them, or with --model resnet18 a full-width ResNet-18.
std::vector<std::pair<const char*, ModelSpec>> modelsNamed(const std::string& model) {
    ModelSpec cnn = ModelSpecBuilder()
                        .kind(ModelKind::SmallCnn)
                        .input(1, 28, 28)
                        .outputs(10)
                        .convWidths(32, 64)
                        .hidden(128)
                        .groupNorm(false)
                        .build()
                        .value();
    ModelSpec mlp =
        ModelSpecBuilder().kind(ModelKind::Mlp).input(1, 28, 28).outputs(10).mlpHidden({512, 512}).build().value();
    // The demo models as the pipeline builds them (GroupNorm): the downstream small CNN with its
    // default widths, and a narrow ResNet-18 on the same 28×28 inputs (--model demo).
    ModelSpec demoCnn = ModelSpecBuilder().kind(ModelKind::SmallCnn).input(1, 28, 28).outputs(2).build().value();
    ModelSpec demoResNet =
        ModelSpecBuilder().kind(ModelKind::ResNet18).input(1, 28, 28).outputs(2).resnetWidth(16).build().value();
    std::vector<std::pair<const char*, ModelSpec>> models{{"CNN", cnn}, {"MLP", mlp}};
    if (model == "demo") models = {{"demo small CNN (GN)", demoCnn}, {"ResNet-18 w16 (GN)", demoResNet}};
    if (model == "resnet18")
        models = {{"ResNet-18 w64 (GN)",
                   ModelSpecBuilder().kind(ModelKind::ResNet18).input(1, 28, 28).outputs(10).build().value()}};
    return models;
}

}  // namespace

int main(int argc, char** argv) {
    // The process as dpmix and the workbench train in it (docs/BENCHMARKS.md, "OpenBLAS's
    // spinning threads", "Large CPU blocks"); plain and DP steps get it alike.
    dpmix::runtime::setUpForTraining(argv);
    int threads = 2, batch = 256, steps = 30, proxyEpochs = 0, rowsPerUser = 0;
    bool userReference = true, phases = false;
    long long noiseCount = 0;
    std::string model;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--model"))
            model = argv[i + 1];
        else if (!std::strcmp(argv[i], "--threads"))
            threads = std::stoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--batch"))
            batch = std::stoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--steps"))
            steps = std::stoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--proxy"))
            proxyEpochs = std::stoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--noise"))
            noiseCount = std::stoll(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--device"))
            gDevice = deviceNamed(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--user-level"))
            rowsPerUser = std::stoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--user-reference"))
            userReference = std::stoi(argv[i + 1]) != 0;
        else if (!std::strcmp(argv[i], "--phases"))
            phases = std::stoi(argv[i + 1]) != 0;
    }
    at::set_num_threads(threads);
    if (noiseCount > 0) {
        measureNoise(noiseCount, steps);
        return 0;
    }
    if (proxyEpochs > 0) {
        measureProxyTraining(proxyEpochs, batch, threads);
        return 0;
    }
    std::printf("threads %d, batch %d, %d timed steps each, device %s\n", threads, batch, steps, gDevice.str().c_str());
    std::printf("BLAS check: 1024x1024 matmul %.1f ms (OpenBLAS: a few ms; reference BLAS: ~1 s)\n", matmulMs());
    if (model == "transformer") {
        TransformerSpec lm;  // the demo defaults
        printHeader("transformer");
        for (auto [name, last] : {std::pair<const char*, int>{"all parameters", 0}, {"last 2 blocks + head", 3}})
            printRow(name, measureTransformer(lm, batch, steps, last));
        return 0;
    }

    const auto models = modelsNamed(model);
    if (phases) {
        for (const auto& [name, spec] : models) measurePhases(name, spec, batch, steps);
        return 0;
    }
    if (rowsPerUser > 0) {
        std::printf("user level: users of %d rows (%d users per batch of %d images)\n", rowsPerUser,
                    (batch + rowsPerUser - 1) / rowsPerUser, batch);
        std::printf("%-24s %18s %18s %13s", "model", "example-level DP", "user-level DP", "user/example");
        if (userReference) std::printf(" %19s %13s", "user-level before", "before/now");
        std::printf("\n");
        for (const auto& [name, spec] : models) measureUserLevel(name, spec, batch, steps, rowsPerUser, userReference);
        return 0;
    }
    printHeader("model");
    for (const auto& [name, spec] : models) printRow(name, measure(spec, batch, steps));
    return 0;
}
