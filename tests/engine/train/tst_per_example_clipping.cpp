// Vectorised per-example clipping against the definition: a loop over examples, one backward
// pass each, clip each gradient to C, sum. Double precision, every layer type and both norm
// strategies (Gram trick and materialised per-example gradients); and, in float32, the
// few-channel convolution kernel (conv_example_kernel.h) at every vector width this CPU runs.
#include "clipping_reference.h"
#include "engine/train/detail/conv_example_kernel.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/network.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include "tests/support/unit_test.h"

#include <algorithm>
#include <functional>

using namespace dpmix::train;
using namespace dpmix::train::detail;
using dpmix::test_support::str;

namespace {

const at::TensorOptions kDouble = at::TensorOptions().dtype(at::kDouble);

struct MeanOverTime : Layer {  // (B, T, D) → (B, D)
    Tensor forward(const Tensor& x, Tape*) override { return x.mean(1); }
    std::string name() const override { return "MeanOverTime"; }
};

struct TransposeTime : Layer {  // (B, T, D) → (B, D, T), so GroupNorm sees channels second
    Tensor forward(const Tensor& x, Tape*) override { return x.transpose(1, 2); }
    std::string name() const override { return "TransposeTime"; }
};

using LossFn = std::function<Tensor(const Tensor& logits, const Tensor& targets)>;

// Σ_b min(1, C/‖∇ℓ_b‖) ∇ℓ_b by the definition, one example at a time.
std::vector<Tensor> naiveClippedSum(Network& net, const Tensor& x, const Tensor& y, const LossFn& loss, double c,
                                    std::vector<double>* norms = nullptr) {
    return testing::naiveClippedSum(
        net, x.size(0), [&](int64_t b) { return loss(net.forward(x.narrow(0, b, 1)), y.narrow(0, b, 1)).sum(); }, c,
        norms);
}

using testing::maxRelativeError;

double vectorisedError(Network& net, const Tensor& x, const Tensor& y, const LossFn& loss, double c,
                       const std::vector<Tensor>& expected, Tensor* normsOut = nullptr) {
    for (Tensor* p : net.parameters()) p->mutable_grad() = Tensor();
    Tape tape;
    Tensor perExample = loss(net.forward(x, &tape), y);
    Tensor norms = clipAndSumGradients(tape, perExample, c);
    if (normsOut) *normsOut = norms;
    return maxRelativeError(net, expected);
}

// Checks C = median norm (half the examples clipped), a tiny C (all clipped), and C = ∞.
void checkAgainstNaive(Network& net, const Tensor& x, const Tensor& y, const LossFn& loss) {
    std::vector<double> norms;
    naiveClippedSum(net, x, y, loss, INFINITY, &norms);
    for (NormStrategy s :
         {NormStrategy::Auto, NormStrategy::Ghost, NormStrategy::Materialise, NormStrategy::MaterialiseGrouped}) {
        net.setNormStrategy(s);
        for (double c : {testing::medianOf(norms), 1e-3 * testing::medianOf(norms), static_cast<double>(INFINITY)}) {
            std::vector<Tensor> expected = naiveClippedSum(net, x, y, loss, c);
            Tensor got;
            const double err = vectorisedError(net, x, y, loss, c, expected, &got);
            QVERIFY2(err < 1e-5, str("strategy ", int(s), ", C ", c, ": max relative error ", err).c_str());
            for (std::size_t b = 0; b < norms.size(); ++b)
                QVERIFY(std::abs(got[static_cast<int64_t>(b)].item<double>() - norms[b]) <= 1e-8 * (1 + norms[b]));
        }
    }
}

// One example's weight (O × C·k·k) and bias (O) gradients of Σ g ⊙ conv(x) by autograd in double:
// the definition, independent of the kernel and of ATen's float convolution backward.
std::pair<Tensor, Tensor> convExampleReference(const Tensor& x, const Tensor& g, int64_t out, int64_t k,
                                               int64_t padding) {
    Tensor w = at::zeros({out, x.size(0), k, k}, kDouble).set_requires_grad(true);
    Tensor b = at::zeros({out}, kDouble).set_requires_grad(true);
    Tensor y = at::conv2d(x.to(at::kDouble).unsqueeze(0), w, b, {1, 1}, {padding, padding});
    auto grads = torch::autograd::grad({(y * g.to(at::kDouble).unsqueeze(0)).sum()}, {w, b});
    return {grads[0].reshape({out, -1}), grads[1]};
}

std::vector<SimdLevel> runnableLevels() {
    std::vector<SimdLevel> levels{SimdLevel::Portable};
    if (bestSimdLevel() != SimdLevel::Portable && cpuHasFma()) levels.push_back(SimdLevel::Avx2);
    if (bestSimdLevel() == SimdLevel::Avx512) levels.push_back(SimdLevel::Avx512);
    return levels;
}

double relativeError(const Tensor& got, const Tensor& expected) {
    return (got.to(at::kDouble) - expected).abs().max().item<double>() /
           std::max(1.0, expected.abs().max().item<double>());
}

LossFn multiclass() {
    return [](const Tensor& l, const Tensor& t) { return multiclassLossPerExample(l, t); };
}
LossFn binary() {
    return [](const Tensor& l, const Tensor& t) { return binaryLossPerExample(l, t); };
}

}  // namespace

class TestPerExampleClipping : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void convGroupNormLinear() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
        InitOptions init{kDouble, &gen};
        Network net(
            {std::make_shared<Sequential>(std::vector<LayerPtr>{
                 std::make_shared<Conv2d>(2, 4, 3, 1, 1, init), std::make_shared<GroupNorm>(2, 4, init),
                 std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2)}),
             std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Conv2d>(4, 6, 3, 2, 1, init),
                                                                std::make_shared<GroupNorm>(3, 6, init),
                                                                std::make_shared<ReLU>(), std::make_shared<Flatten>()}),
             std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Linear>(24, 5, init),
                                                                std::make_shared<ReLU>(),
                                                                std::make_shared<Linear>(5, 3, init)})});
        // Non-trivial GroupNorm affine parameters, so their gradients are not degenerate.
        for (Tensor* p : net.parameters()) {
            at::NoGradGuard g;
            p->add_(at::randn(p->sizes(), gen, kDouble) * 0.3);
        }
        Tensor x = at::randn({7, 2, 8, 8}, gen, kDouble);
        Tensor y = at::randint(0, 3, {7}, gen, at::TensorOptions().dtype(at::kLong));
        checkAgainstNaive(net, x, y, multiclass());
    }

    void embeddingSequenceLinear() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(12);
        InitOptions init{kDouble, &gen};
        Network net({std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Embedding>(7, 4, init)}),
                     std::make_shared<Sequential>(std::vector<LayerPtr>{
                         std::make_shared<Linear>(4, 6, init), std::make_shared<TransposeTime>(),
                         std::make_shared<GroupNorm>(3, 6, init), std::make_shared<TransposeTime>(),
                         std::make_shared<ReLU>(), std::make_shared<MeanOverTime>()}),
                     std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Linear>(6, 1, init)})});
        // Sequences of 5 tokens over a vocabulary of 7: repeated tokens in most rows; row 0
        // repeats one token throughout (the Embedding's index-coincidence term at its largest).
        Tensor idx = at::randint(0, 7, {6, 5}, gen, at::TensorOptions().dtype(at::kLong));
        idx[0].fill_(3);
        Tensor y = at::randint(0, 2, {6}, gen, kDouble);
        checkAgainstNaive(net, idx, y, binary());
    }

    void resnet18WithFrozenBlocks() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(13);
        ModelSpec spec = ModelSpecBuilder()
                             .kind(ModelKind::ResNet18)
                             .input(3, 8, 8)
                             .outputs(2)
                             .resnetWidth(4)
                             .normGroups(2)
                             .build()
                             .value();
        Network net = buildNetwork(spec, gen, kDouble);
        Tensor x = at::randn({5, 3, 8, 8}, gen, kDouble);
        Tensor y = at::randint(0, 2, {5}, gen, at::TensorOptions().dtype(at::kLong));
        checkAgainstNaive(net, x, y, multiclass());
        // Fine-tune only the last 3 blocks (two basic blocks + head): the frozen ones get no gradient.
        net.trainOnlyLastBlocks(3);
        QVERIFY(net.trainableParameters().size() < net.parameters().size());
        checkAgainstNaive(net, x, y, multiclass());
        for (Tensor* p : net.parameters())
            if (!p->requires_grad()) QVERIFY(!p->grad().defined());
    }

    void mlpAndSmallCnnFromSpecs() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(14);
        Network mlp = buildNetwork(
            ModelSpecBuilder().kind(ModelKind::Mlp).input(1, 4, 4).outputs(3).mlpHidden({6, 5}).build().value(), gen,
            kDouble);
        Tensor x = at::randn({6, 1, 4, 4}, gen, kDouble);
        Tensor y = at::randint(0, 3, {6}, gen, at::TensorOptions().dtype(at::kLong));
        checkAgainstNaive(mlp, x, y, multiclass());
        Network cnn = buildNetwork(testing::tinyGroupNormCnn(), gen, kDouble);
        Tensor yb = at::randint(0, 2, {6}, gen, kDouble);
        checkAgainstNaive(cnn, at::randn({6, 1, 8, 8}, gen, kDouble), yb, binary());
    }

    void fewChannelConvolutionKernelMatchesTheDefinitionAtEveryWidth() {
        // Shapes: the reference CNN's first layer; colour input without padding; a 5 × 5 kernel;
        // output rows narrower than 8 and 16 lanes (the narrow levels only); rows a multiple of
        // the lanes (no tail); one tail lane.
        const std::vector<ConvExampleShape> shapes{{1, 28, 28, 5, 3, 1}, {3, 9, 13, 4, 3, 0}, {2, 7, 21, 3, 5, 2},
                                                   {1, 5, 4, 2, 3, 2},   {7, 4, 16, 2, 3, 1}, {1, 3, 17, 3, 3, 1}};
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(21);
        int checked = 0;
        for (const ConvExampleShape& shape : shapes) {
            Tensor x = at::randn({shape.channels, shape.height, shape.width}, gen, at::kFloat);
            Tensor g = at::randn({shape.outChannels, shape.outHeight(), shape.outWidth()}, gen, at::kFloat);
            const auto [weightRef, biasRef] =
                convExampleReference(x, g, shape.outChannels, shape.kernel, shape.padding);
            for (SimdLevel level : runnableLevels()) {
                if (!convExampleKernelFits(level, shape)) continue;
                std::vector<float> scratch(static_cast<std::size_t>(convExampleScratchFloats(shape)));
                Tensor weight = at::full({shape.outChannels, shape.channels * shape.kernel * shape.kernel}, NAN);
                Tensor bias = at::full({shape.outChannels}, NAN);
                convExampleGradients(level, shape, x.data_ptr<float>(), g.data_ptr<float>(), scratch.data(),
                                     weight.data_ptr<float>(), bias.data_ptr<float>());
                const double we = relativeError(weight, weightRef), be = relativeError(bias, biasRef);
                QVERIFY2(we < 1e-5 && be < 1e-5,
                         str("C ", shape.channels, " ", shape.height, "×", shape.width, " k ", shape.kernel, " p ",
                             shape.padding, ", level ", int(level), ": weight error ", we, ", bias error ", be)
                             .c_str());
                ++checked;
            }
        }
        QVERIFY(checked >= static_cast<int>(shapes.size()));
        // Where it does not apply it says so: kernel 7, an output row of 3 columns.
        SimdLevel level;
        QVERIFY(!convExampleKernelLevel({1, 28, 28, 4, 7, 3}, &level));
        QVERIFY(!convExampleKernelLevel({1, 3, 3, 4, 3, 0}, &level));
    }

    void floatCnnClipsThroughTheKernelAsByTheDefinition() {
        // The float32 first convolution takes the kernel inside clipAndSumGradients; the result
        // equals the float32 one-example-at-a-time reference (ATen's own convolution backward).
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(22);
        InitOptions init{at::TensorOptions().dtype(at::kFloat), &gen};
        auto conv = std::make_shared<Conv2d>(1, 4, 3, 1, 1, init);
        Network net({std::make_shared<Sequential>(
                         std::vector<LayerPtr>{conv, std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2)}),
                     std::make_shared<Sequential>(std::vector<LayerPtr>{
                         std::make_shared<Conv2d>(4, 24, 3, 1, 1, init), std::make_shared<ReLU>(),
                         std::make_shared<Flatten>(), std::make_shared<Linear>(24 * 36, 3, init)})});
        Tensor x = at::randn({9, 1, 12, 12}, gen, at::kFloat);
        Tensor y = at::randint(0, 3, {9}, gen, at::TensorOptions().dtype(at::kLong));
        Tape tape;
        net.forward(x, &tape);
        Capture& first = tape.captures.at(0);
        QCOMPARE(first.layer, static_cast<TrainableLayer*>(conv.get()));
        QVERIFY(!conv->kernelExampleGradients(first, at::randn({9, 4, 12, 12}, gen, at::kFloat)).empty());
        std::vector<double> norms;
        naiveClippedSum(net, x, y, multiclass(), INFINITY, &norms);
        for (double c : {testing::medianOf(norms), static_cast<double>(INFINITY)}) {
            std::vector<Tensor> expected = naiveClippedSum(net, x, y, multiclass(), c);
            Tensor got;
            const double err = vectorisedError(net, x, y, multiclass(), c, expected, &got);
            QVERIFY2(err < 1e-5, str("C ", c, ": max relative error ", err).c_str());
            for (std::size_t b = 0; b < norms.size(); ++b)
                QVERIFY(std::abs(got[static_cast<int64_t>(b)].item<double>() - norms[b]) <= 1e-5 * (1 + norms[b]));
        }
    }

    void clippedContributionNeverExceedsC() {
        // With a single example the clipped sum is that example's clipped gradient: norm ≤ C.
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(15);
        Network net = buildNetwork(
            ModelSpecBuilder().kind(ModelKind::Mlp).input(1, 3, 3).outputs(2).mlpHidden({4}).build().value(), gen,
            kDouble);
        for (int trial = 0; trial < 20; ++trial) {
            Tape tape;
            Tensor x = at::randn({1, 1, 3, 3}, gen, kDouble) * 10;
            Tensor loss = multiclassLossPerExample(net.forward(x, &tape), at::zeros({1}, at::kLong));
            Tensor norms = clipAndSumGradients(tape, loss, 0.05);
            double sq = 0;
            for (Tensor* p : net.trainableParameters()) sq += p->grad().pow(2).sum().item<double>();
            QVERIFY(std::sqrt(sq) <= 0.05 * (1 + 1e-9));
            if (norms.item<double>() > 0.05) QVERIFY(std::abs(std::sqrt(sq) - 0.05) < 1e-9);
        }
    }
};

QTEST_APPLESS_MAIN(TestPerExampleClipping)
#include "tst_per_example_clipping.moc"
