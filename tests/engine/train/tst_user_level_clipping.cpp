// User-level clipping (clipAndSumUserGradients) against its definition: for each user, one
// backward pass of the user's mean loss, clip that gradient to C, sum over users. Double
// precision, every layer type. Plus the property user-level DP rests on: a user with many
// examples moves the clipped sum by at most C.
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/network.h"
#include "engine/train/detail/transformer_layers.h"
#include "clipping_reference.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include "tests/support/unit_test.h"

#include <algorithm>
#include <cmath>
#include <functional>

using namespace dpmix::train;
using namespace dpmix::train::detail;
using dpmix::test_support::str;

namespace {

const at::TensorOptions kDouble = at::TensorOptions().dtype(at::kDouble);
const at::TensorOptions kLong = at::TensorOptions().dtype(at::kLong);

using LossFn = std::function<Tensor(const Tensor& logits, const Tensor& targets)>;
LossFn binary() { return [](const Tensor& l, const Tensor& t) { return binaryLossPerExample(l, t); }; }
LossFn multiclass() { return [](const Tensor& l, const Tensor& t) { return multiclassLossPerExample(l, t); }; }

// Σ_u min(1, C/‖ḡ_u‖) ḡ_u with ḡ_u = ∇ mean_{b∈u} ℓ_b, one user at a time.
std::vector<Tensor> naiveUserClippedSum(Network& net, const Tensor& x, const Tensor& y, const std::vector<int64_t>& userOf,
                                        int64_t users, const LossFn& loss, double c, std::vector<double>* norms = nullptr) {
    auto userLoss = [&](int64_t u) {
        std::vector<int64_t> rows;
        for (std::size_t b = 0; b < userOf.size(); ++b)
            if (userOf[b] == u) rows.push_back(static_cast<int64_t>(b));
        Tensor idx = at::tensor(rows, kLong);
        return loss(net.forward(x.index_select(0, idx)), y.index_select(0, idx)).mean();
    };
    return testing::naiveClippedSum(net, users, userLoss, c, norms);
}

Tensor vectorisedUserSum(Network& net, const Tensor& x, const Tensor& y, const std::vector<int64_t>& userOf,
                         int64_t users, const LossFn& loss, double c) {
    for (Tensor* p : net.parameters()) p->mutable_grad() = Tensor();
    Tape tape;
    Tensor perExample = loss(net.forward(x, &tape), y);
    return clipAndSumUserGradients(tape, perExample, at::tensor(userOf, kLong), users, c);
}

using testing::maxRelativeError;

double gradNorm(Network& net) {
    double sq = 0;
    for (Tensor* p : net.trainableParameters()) sq += p->grad().pow(2).sum().item<double>();
    return std::sqrt(sq);
}

std::vector<Tensor> gradients(Network& net) {
    std::vector<Tensor> out;
    for (Tensor* p : net.trainableParameters()) out.push_back(p->grad().clone());
    return out;
}

// Users of unequal sizes (1 to 4 rows), rows interleaved so no user is contiguous.
std::vector<int64_t> interleavedUsers(int64_t rows, int64_t users) {
    std::vector<int64_t> out;
    for (int64_t b = 0; b < rows; ++b) out.push_back((b * 7 + b / 3) % users);
    return out;
}

void checkAgainstNaive(Network& net, const Tensor& x, const Tensor& y, const std::vector<int64_t>& userOf,
                       int64_t users, const LossFn& loss) {
    std::vector<double> norms;
    naiveUserClippedSum(net, x, y, userOf, users, loss, INFINITY, &norms);
    const double median = testing::medianOf(norms);
    for (double c : {median, 1e-3 * median, static_cast<double>(INFINITY)}) {
        const auto expected = naiveUserClippedSum(net, x, y, userOf, users, loss, c);
        Tensor got = vectorisedUserSum(net, x, y, userOf, users, loss, c);
        const double err = maxRelativeError(net, expected);
        QVERIFY2(err < 1e-6, str("C ", c, ": max relative error ", err).c_str());
        for (int64_t u = 0; u < users; ++u)
            QVERIFY(std::abs(got[u].item<double>() - norms[static_cast<std::size_t>(u)]) <= 1e-8 * (1 + norms[u]));
    }
}

Network convNet(at::Generator& gen) {
    InitOptions init{kDouble, &gen};
    Network net({std::make_shared<Sequential>(std::vector<LayerPtr>{
                     std::make_shared<Conv2d>(2, 4, 3, 1, 1, init), std::make_shared<GroupNorm>(2, 4, init),
                     std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2)}),
                 std::make_shared<Sequential>(std::vector<LayerPtr>{
                     std::make_shared<Conv2d>(4, 6, 3, 2, 1, init), std::make_shared<GroupNorm>(3, 6, init),
                     std::make_shared<ReLU>(), std::make_shared<Flatten>()}),
                 std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Linear>(24, 5, init),
                                                                    std::make_shared<ReLU>(),
                                                                    std::make_shared<Linear>(5, 3, init)})});
    for (Tensor* p : net.parameters()) {
        at::NoGradGuard g;
        p->add_(at::randn(p->sizes(), gen, kDouble) * 0.3);
    }
    return net;
}

}  // namespace

class TestUserLevelClipping : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void convGroupNormLinearMatchesTheDefinition() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(21);
        Network net = convNet(gen);
        Tensor x = at::randn({11, 2, 8, 8}, gen, kDouble);
        Tensor y = at::randint(0, 3, {11}, gen, kLong);
        checkAgainstNaive(net, x, y, interleavedUsers(11, 4), 4, multiclass());
        // Both convolution routes (the first layer has C_in·k² = 18 <= 64; force the grouped one).
        net.setNormStrategy(NormStrategy::MaterialiseGrouped);
        checkAgainstNaive(net, x, y, interleavedUsers(11, 4), 4, multiclass());
    }

    void smallCnnAndResNetFromSpecsMatchTheDefinition() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(22);
        Network cnn = buildNetwork(ModelSpecBuilder().kind(ModelKind::SmallCnn).input(1, 8, 8).outputs(1)
                                       .convWidths(4, 4).hidden(5).normGroups(2).build().value(), gen, kDouble);
        checkAgainstNaive(cnn, at::randn({9, 1, 8, 8}, gen, kDouble), at::randint(0, 2, {9}, gen, kDouble),
                          interleavedUsers(9, 3), 3, binary());
        Network resnet = buildNetwork(ModelSpecBuilder().kind(ModelKind::ResNet18).input(3, 8, 8).outputs(2)
                                          .resnetWidth(4).normGroups(2).build().value(), gen, kDouble);
        resnet.trainOnlyLastBlocks(3);
        checkAgainstNaive(resnet, at::randn({6, 3, 8, 8}, gen, kDouble), at::randint(0, 2, {6}, gen, kLong),
                          interleavedUsers(6, 2), 2, multiclass());
    }

    void sequenceLayersMatchTheDefinition() {
        // Embedding, LayerNorm, positional embedding and a sequence Linear: the LM's layers.
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(23);
        InitOptions init{kDouble, &gen};
        struct MeanOverTime : Layer {
            Tensor forward(const Tensor& x, Tape*) override { return x.mean(1); }
            std::string name() const override { return "MeanOverTime"; }
        };
        Network net({std::make_shared<Sequential>(std::vector<LayerPtr>{
                         std::make_shared<Embedding>(7, 4, init), std::make_shared<PositionalEmbedding>(6, 4, init),
                         std::make_shared<LayerNorm>(4, init), std::make_shared<Linear>(4, 3, init),
                         std::make_shared<MeanOverTime>(), std::make_shared<Linear>(3, 1, init)})});
        Tensor idx = at::randint(0, 7, {8, 5}, gen, kLong);
        idx[0].fill_(2);
        checkAgainstNaive(net, idx, at::randint(0, 2, {8}, gen, kDouble), interleavedUsers(8, 3), 3, binary());
    }

    void singletonUsersAreExampleLevelClipping() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(24);
        Network net = convNet(gen);
        Tensor x = at::randn({6, 2, 8, 8}, gen, kDouble);
        Tensor y = at::randint(0, 3, {6}, gen, kLong);
        for (Tensor* p : net.parameters()) p->mutable_grad() = Tensor();
        Tape tape;
        Tensor norms = clipAndSumGradients(tape, multiclassLossPerExample(net.forward(x, &tape), y), 0.5);
        const auto perExample = gradients(net);
        Tensor userNorms = vectorisedUserSum(net, x, y, {0, 1, 2, 3, 4, 5}, 6, multiclass(), 0.5);
        QVERIFY(maxRelativeError(net, perExample) < 1e-9);
        QVERIFY(at::allclose(norms, userNorms, 1e-9, 1e-12));
    }

    void aUserWithManyExamplesMovesTheSumByAtMostC() {
        // Neighbouring batches: the same 5 users, with and without a 6th user of 12 examples
        // (inputs scaled up so its mean gradient is far above C). ‖Δ‖ ≤ C, and = C when clipped.
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(25);
        Network net = convNet(gen);
        const double c = 0.2;
        for (int trial = 0; trial < 5; ++trial) {
            Tensor others = at::randn({10, 2, 8, 8}, gen, kDouble);
            Tensor heavy = at::randn({12, 2, 8, 8}, gen, kDouble) * 20;
            Tensor yOthers = at::randint(0, 3, {10}, gen, kLong), yHeavy = at::randint(0, 3, {12}, gen, kLong);
            std::vector<int64_t> users;
            for (int64_t b = 0; b < 10; ++b) users.push_back(b % 5);
            vectorisedUserSum(net, others, yOthers, users, 5, multiclass(), c);
            const auto without = gradients(net);
            for (int b = 0; b < 12; ++b) users.push_back(5);
            Tensor norms = vectorisedUserSum(net, at::cat({others, heavy}), at::cat({yOthers, yHeavy}), users, 6,
                                             multiclass(), c);
            double sq = 0;
            const auto params = net.trainableParameters();
            for (std::size_t i = 0; i < params.size(); ++i) sq += (params[i]->grad() - without[i]).pow(2).sum().item<double>();
            QVERIFY2(std::sqrt(sq) <= c * (1 + 1e-9), str(std::sqrt(sq)).c_str());
            QVERIFY(norms[5].item<double>() > c);
            DPMIX_COMPARE_NEAR(std::sqrt(sq), c, 1e-9);
        }
    }

    void aUserWithANonFiniteGradientContributesNothing() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(26);
        Network net = convNet(gen);
        Tensor x = at::randn({8, 2, 8, 8}, gen, kDouble);
        Tensor y = at::randint(0, 3, {8}, gen, kLong);
        const std::vector<int64_t> users{0, 1, 2, 3, 0, 1, 2, 3};
        // Without user 3 (rows 3 and 7).
        Tensor keep = at::tensor(std::vector<int64_t>{0, 1, 2, 4, 5, 6}, kLong);
        vectorisedUserSum(net, x.index_select(0, keep), y.index_select(0, keep), {0, 1, 2, 0, 1, 2}, 3, multiclass(), 0.5);
        const auto without = gradients(net);
        Tensor poisoned = x.clone();
        poisoned[7].fill_(std::numeric_limits<double>::infinity());
        Tensor norms = vectorisedUserSum(net, poisoned, y, users, 4, multiclass(), 0.5);
        QVERIFY(maxRelativeError(net, without) < 1e-9);
        QVERIFY(!std::isfinite(norms[3].item<double>()));
        QVERIFY(std::isfinite(gradNorm(net)));
    }
};

QTEST_APPLESS_MAIN(TestUserLevelClipping)
#include "tst_user_level_clipping.moc"
