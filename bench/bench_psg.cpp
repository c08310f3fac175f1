// The cost of one PSG iteration, split into its parts (docs/BENCHMARKS.md, "PSG"): on PSG's
// ConvNet (width 128, depth 3, instance norm) at 28×28 grey, with a real batch of 256 and
// S = spc × 10 images: the DP real gradient (per-example clipping + secure noise) beside a plain
// gradient of the same batch, the synthetic gradient with its double backward, and one epoch of
// training the network on S. Usage: bench_psg [repetitions=10] [spc=10] [width=128]
#include "bench/bench_timing.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/psg/detail/gradient_match.h"
#include "engine/psg_set/psg_params.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/model.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include <cstdio>
#include <cstdlib>

using namespace dpmix;
using at::Tensor;

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
    const int spc = argc > 2 ? std::atoi(argv[2]) : 10;
    const int width = argc > 3 ? std::atoi(argv[3]) : 128;
    train::setTorchThreads(2);
    train::ModelSpec spec = train::ModelSpecBuilder()
                                .kind(train::ModelKind::ConvNet)
                                .input(1, 28, 28)
                                .outputs(10)
                                .convNet(width, 3)
                                .build()
                                .value();
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(1);
    train::detail::Network net = train::detail::buildNetwork(spec, gen);
    const Tensor real = at::randn({256, 1, 28, 28}, gen);
    const Tensor realLabels = at::randint(0, 10, {256}, gen, at::kLong);
    Tensor set = at::randn({10L * spc, 1, 28, 28}, gen).set_requires_grad(true);
    const Tensor setLabels = at::arange(10, at::kLong).repeat_interleave(spc);
    privacy::MechanismRng noise(privacy::RandomnessSource::secret(), "noise");
    std::vector<Tensor*> params = net.parameters();

    auto plainGradient = [&] {
        train::detail::zeroGradients(params);
        at::cross_entropy_loss(net.forward(real, nullptr), realLabels).backward();
    };
    auto dpGradient = [&] { (void)psg::detail::privateRealGradient(net, real, realLabels, 0.1, 0.1, 256, noise); };
    std::vector<Tensor> realGrad = psg::detail::privateRealGradient(net, real, realLabels, 0.1, 0.1, 256, noise);
    auto matchStep = [&] {
        const Tensor d = psg::detail::matchDistance(psg::detail::syntheticGradient(net, set, setLabels), realGrad);
        (void)torch::autograd::grad({d}, {set});
    };
    train::detail::SgdOptimizer sgd(params, 0.01);
    auto trainEpochOnSet = [&] {
        for (int64_t start = 0; start < set.size(0); start += 256) {
            train::detail::zeroGradients(params);
            const Tensor rows = set.detach().slice(0, start, std::min<int64_t>(set.size(0), start + 256));
            at::cross_entropy_loss(net.forward(rows, nullptr), setLabels.slice(0, start, start + rows.size(0)))
                .backward();
            sgd.step();
        }
    };
    for (int i = 0; i < 2; ++i) {
        plainGradient();
        dpGradient();
        matchStep();
        trainEpochOnSet();
    }  // warm-up

    const auto plain = bench::timeIt(reps, plainGradient);
    const auto dp = bench::timeIt(reps, dpGradient);
    const auto match = bench::timeIt(reps, matchStep);
    const auto epoch = bench::timeIt(reps, trainEpochOnSet);
    const psg::PsgLoops loops = psg::loopsForImagesPerClass(spc).value();
    const double perIterationMs =
        loops.outer * 10 * (dp.medianMs + match.medianMs) + (loops.outer - 1) * loops.inner * epoch.medianMs;
    std::printf("PSG ConvNet width %d depth 3, 28x28 grey, real batch 256, |S| = %d (spc %d), %d repetitions\n", width,
                10 * spc, spc, reps);
    std::printf("%-34s %10s %10s\n", "part", "median ms", "fastest ms");
    std::printf("%-34s %10.1f %10.1f\n", "plain gradient (batch 256)", plain.medianMs, plain.fastestMs);
    std::printf("%-34s %10.1f %10.1f\n", "DP gradient (clip + noise)", dp.medianMs, dp.fastestMs);
    std::printf("%-34s %10.1f %10.1f\n", "synthetic gradient + double bwd", match.medianMs, match.fastestMs);
    std::printf("%-34s %10.1f %10.1f\n", "one epoch of training on S", epoch.medianMs, epoch.fastestMs);
    std::printf("DP / plain: %.2f (median), %.2f (fastest)\n", dp.medianMs / plain.medianMs,
                dp.fastestMs / plain.fastestMs);
    std::printf("one iteration (outer %d x batch_loop 10 matching steps, %d x %d epochs on S): %.1f s\n", loops.outer,
                loops.outer - 1, loops.inner, perIterationMs / 1000.0);
    return 0;
}
