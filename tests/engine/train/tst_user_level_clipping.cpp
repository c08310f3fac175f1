// User-level clipping (clipAndSumUserGradients) against its definition: for each user, one
// backward pass of the user's mean loss, clip that gradient to C, sum over users. Double
// precision, every layer type. Plus the property user-level DP rests on: a user with many
// examples moves the clipped sum by at most C.
// The checks named "...PerLayerKind" compare with a second, per-example definition (autograd on
// each row alone, the gradients averaged within users, clipped, summed), under every norm
// strategy — hence every per-user route (the Gram trick, materialised per-user sums, both
// convolution routes) — with users of one and of several rows, unequal sizes (buckets with zero
// padding), rows interleaved or ordered by user (the layout without a copy), and a user whose two
// rows' gradients cancel exactly; they report the largest relative error per layer kind at the end.
#include "clipping_reference.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/network.h"
#include "engine/train/detail/transformer_layers.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include "tests/support/unit_test.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

using namespace dpmix::train;
using namespace dpmix::train::detail;
using dpmix::test_support::str;

namespace {

const at::TensorOptions kDouble = at::TensorOptions().dtype(at::kDouble);
const at::TensorOptions kLong = at::TensorOptions().dtype(at::kLong);

using LossFn = std::function<Tensor(const Tensor& logits, const Tensor& targets)>;
LossFn binary() {
    return [](const Tensor& l, const Tensor& t) { return binaryLossPerExample(l, t); };
}
LossFn multiclass() {
    return [](const Tensor& l, const Tensor& t) { return multiclassLossPerExample(l, t); };
}

// Σ_u min(1, C/‖ḡ_u‖) ḡ_u with ḡ_u = ∇ mean_{b∈u} ℓ_b, one user at a time.
std::vector<Tensor> naiveUserClippedSum(Network& net, const Tensor& x, const Tensor& y,
                                        const std::vector<int64_t>& userOf, int64_t users, const LossFn& loss, double c,
                                        std::vector<double>* norms = nullptr) {
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
    Network net(
        {std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Conv2d>(2, 4, 3, 1, 1, init),
                                                            std::make_shared<GroupNorm>(2, 4, init),
                                                            std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2)}),
         std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Conv2d>(4, 6, 3, 2, 1, init),
                                                            std::make_shared<GroupNorm>(3, 6, init),
                                                            std::make_shared<ReLU>(), std::make_shared<Flatten>()}),
         std::make_shared<Sequential>(std::vector<LayerPtr>{
             std::make_shared<Linear>(24, 5, init), std::make_shared<ReLU>(), std::make_shared<Linear>(5, 3, init)})});
    for (Tensor* p : net.parameters()) {
        at::NoGradGuard g;
        p->add_(at::randn(p->sizes(), gen, kDouble) * 0.3);
    }
    return net;
}

// ---- the per-example definition, and errors per layer kind ------------------------------------

// ℓ_b = Σ_k z_bk t_bk: a loss linear in the logits, so a row with the same input and the negated
// weights t has exactly the negated gradient (a user made of both has a zero mean gradient).
LossFn linearLoss() {
    return [](const Tensor& l, const Tensor& t) { return (l * t).sum(1); };
}

struct UserMeans {
    std::vector<std::vector<Tensor>> mean;  // ḡ_u per trainable parameter
    std::vector<double> rowScale;           // (1/|u|) Σ_{b∈u} ‖∇ℓ_b‖, ≥ ‖ḡ_u‖
};

// Each row's gradient by autograd on that row alone (a batch of one), averaged within users.
UserMeans perExampleUserMeans(Network& net, const Tensor& x, const Tensor& y, const std::vector<int64_t>& userOf,
                              int64_t users, const LossFn& loss) {
    std::vector<Tensor*> params = net.trainableParameters();
    std::vector<Tensor> inputs;
    for (Tensor* p : params) inputs.push_back(*p);
    std::vector<double> count(static_cast<std::size_t>(users), 0.0);
    for (int64_t u : userOf) count[static_cast<std::size_t>(u)] += 1;
    UserMeans m;
    m.rowScale.assign(static_cast<std::size_t>(users), 0.0);
    for (int64_t u = 0; u < users; ++u) {
        m.mean.emplace_back();
        for (Tensor* p : params) m.mean.back().push_back(at::zeros_like(*p));
    }
    for (std::size_t b = 0; b < userOf.size(); ++b) {
        const auto row = static_cast<int64_t>(b);
        const auto u = static_cast<std::size_t>(userOf[b]);
        Tensor l = loss(net.forward(x.narrow(0, row, 1)), y.narrow(0, row, 1)).sum();
        auto grads = torch::autograd::grad({l}, inputs, {}, false, false, true);
        double sq = 0;
        for (std::size_t i = 0; i < grads.size(); ++i) {
            if (!grads[i].defined()) continue;
            sq += grads[i].pow(2).sum().item<double>();
            m.mean[u][i] = m.mean[u][i] + grads[i] / count[u];
        }
        m.rowScale[u] += std::sqrt(sq) / count[u];
    }
    return m;
}

// Σ_u min(1, C/‖ḡ_u‖) ḡ_u, and the unclipped ‖ḡ_u‖.
std::vector<Tensor> clippedUserSum(const UserMeans& m, double c, std::vector<double>& norms) {
    std::vector<Tensor> sum;
    for (const Tensor& g : m.mean.at(0)) sum.push_back(at::zeros_like(g));
    norms.clear();
    for (const auto& mean : m.mean) {
        double sq = 0;
        for (const Tensor& g : mean) sq += g.pow(2).sum().item<double>();
        norms.push_back(std::sqrt(sq));
        const double f = std::isinf(c) ? 1.0 : std::min(1.0, c / std::max(norms.back(), 1e-12));
        for (std::size_t i = 0; i < mean.size(); ++i) sum[i] = sum[i] + f * mean[i];
    }
    return sum;
}

void collectTrainable(Layer* layer, std::vector<TrainableLayer*>& out) {
    if (auto* t = dynamic_cast<TrainableLayer*>(layer)) {
        out.push_back(t);
        return;
    }
    for (Layer* child : layer->children()) collectTrainable(child, out);
}

std::map<const Tensor*, std::string> layerKindOfParameter(Network& net) {
    std::vector<TrainableLayer*> layers;
    for (const LayerPtr& block : net.blocks()) collectTrainable(block.get(), layers);
    std::map<const Tensor*, std::string> kind;
    for (TrainableLayer* l : layers)
        for (Tensor* p : l->parameters()) kind[p] = l->name();
    return kind;
}

// The largest relative error seen per layer kind (clipped sums) and per check (user norms).
std::map<std::string, double>& worstGradientError() {
    static std::map<std::string, double> worst;
    return worst;
}
std::map<std::string, double>& worstNormError() {
    static std::map<std::string, double> worst;
    return worst;
}

// Rows of users with the given sizes, in an interleaved order (no user's rows are contiguous).
std::vector<int64_t> usersOfSizes(const std::vector<int64_t>& sizes) {
    std::vector<int64_t> userOf;
    for (std::size_t u = 0; u < sizes.size(); ++u) userOf.insert(userOf.end(), static_cast<std::size_t>(sizes[u]), u);
    std::vector<int64_t> out(userOf.size());
    const std::size_t n = userOf.size();
    std::size_t step = 5;
    while (std::gcd(step, n) != 1) ++step;  // a permutation b → b·step mod n
    for (std::size_t b = 0; b < n; ++b) out[(b * step) % n] = userOf[b];
    return out;
}

// Checks clipAndSumUserGradients against the per-example definition under every norm strategy,
// C = the median user norm, 1e-3 of it (all clipped) and ∞; relative errors of the clipped sum
// per parameter (to its largest expected entry) and of the norms (to the norm, or, for a user
// whose rows cancel, to the mean of its rows' gradient norms), both < 1e-6.
void checkPerExample(const std::string& check, Network& net, const Tensor& x, const Tensor& y,
                     const std::vector<int64_t>& userOf, int64_t users, const LossFn& loss) {
    const UserMeans means = perExampleUserMeans(net, x, y, userOf, users, loss);
    const auto kindOf = layerKindOfParameter(net);
    std::vector<double> norms;
    clippedUserSum(means, INFINITY, norms);
    const double median = testing::medianOf(norms);
    for (NormStrategy s :
         {NormStrategy::Auto, NormStrategy::Ghost, NormStrategy::Materialise, NormStrategy::MaterialiseGrouped}) {
        net.setNormStrategy(s);
        for (double c : {median, 1e-3 * median, static_cast<double>(INFINITY)}) {
            const auto expected = clippedUserSum(means, c, norms);
            Tensor got = vectorisedUserSum(net, x, y, userOf, users, loss, c);
            const auto params = net.trainableParameters();
            for (std::size_t i = 0; i < params.size(); ++i) {
                QVERIFY(params[i]->grad().defined());
                const double scale = expected[i].abs().max().item<double>();
                const double err =
                    (params[i]->grad() - expected[i]).abs().max().item<double>() / std::max(scale, 1e-300);
                const std::string& kind = kindOf.at(params[i]);
                worstGradientError()[kind] = std::max(worstGradientError()[kind], err);
                QVERIFY2(err < 1e-6, str(check, ", strategy ", int(s), ", C ", c, ", ", kind, " parameter ", i,
                                         ": relative error ", err)
                                         .c_str());
            }
            for (int64_t u = 0; u < users; ++u) {
                const auto uu = static_cast<std::size_t>(u);
                const bool cancels = norms[uu] < 1e-9 * means.rowScale[uu];
                const double err =
                    std::abs(got[u].item<double>() - norms[uu]) / (cancels ? means.rowScale[uu] : norms[uu]);
                const std::string key = check + (cancels ? " (cancelling user)" : "");
                worstNormError()[key] = std::max(worstNormError()[key], err);
                QVERIFY2(err < 1e-6, str(check, ", strategy ", int(s), ", user ", u, ": norm ", got[u].item<double>(),
                                         " vs ", norms[uu])
                                         .c_str());
            }
        }
    }
    net.setNormStrategy(NormStrategy::Auto);
}

// The case with a cancelling user: row 0 repeated as a new row of the same user (users[0] must
// have only row 0), with negated loss weights, so that user's mean gradient is exactly zero.
void checkWithCancellingUser(const std::string& check, Network& net, const Tensor& x, const Tensor& weights,
                             std::vector<int64_t> userOf, int64_t users) {
    QVERIFY(std::count(userOf.begin(), userOf.end(), userOf[0]) == 1);
    userOf.push_back(userOf[0]);
    const Tensor xs = at::cat({x, x.narrow(0, 0, 1)});
    const Tensor ws = at::cat({weights, -weights.narrow(0, 0, 1)});
    checkPerExample(check, net, xs, ws, userOf, users, linearLoss());
    const UserMeans means = perExampleUserMeans(net, xs, ws, userOf, users, linearLoss());
    double sq = 0;
    for (const Tensor& g : means.mean[static_cast<std::size_t>(userOf[0])]) sq += g.pow(2).sum().item<double>();
    QVERIFY2(sq == 0 && means.rowScale[static_cast<std::size_t>(userOf[0])] > 0, "the user's rows must cancel");
}

// Three layouts, each with a real loss: users of 1–4 rows interleaved (users of 3 and 4 rows
// share a bucket: zero padding), one user of 7 and one of 5 rows (padded) beside four of one,
// and four users of 3 rows in order (the grouped layout is the batch itself); then the first
// again with a cancelling user.
template <typename MakeInput>
void checkLayouts(const std::string& check, Network& net, at::Generator& gen, MakeInput&& input, const LossFn& loss,
                  const std::function<Tensor(int64_t)>& targets, int64_t outputs) {
    const std::vector<int64_t> mixed = usersOfSizes({1, 2, 3, 4, 1, 3}), skewed = usersOfSizes({7, 1, 1, 5, 1, 1});
    const std::vector<int64_t> ordered{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    checkPerExample(check, net, input(14), targets(14), mixed, 6, loss);
    checkPerExample(check, net, input(16), targets(16), skewed, 6, loss);
    checkPerExample(check, net, input(12), targets(12), ordered, 4, loss);
    // User 0 is row 0 alone in this layout; the duplicate makes it a cancelling pair.
    std::vector<int64_t> withPair = usersOfSizes({1, 3, 1, 2, 4});
    std::swap(withPair[0], *std::find(withPair.begin(), withPair.end(), 0));
    checkWithCancellingUser(check, net, input(11), at::randn({11, outputs}, gen, kDouble), withPair, 5);
}

struct MeanOverTimeLayer : Layer {
    Tensor forward(const Tensor& x, Tape*) override { return x.mean(1); }
    std::string name() const override { return "MeanOverTime"; }
};

}  // namespace

class TestUserLevelClipping : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cleanupTestCase() {
        for (const auto& [kind, err] : worstGradientError())
            qInfo("clipped sum, %s parameters: max relative error %.2e", kind.c_str(), err);
        for (const auto& [check, err] : worstNormError())
            qInfo("user norms, %s: max relative error %.2e", check.c_str(), err);
    }

    void linearLayersPerLayerKind() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(31);
        InitOptions init{kDouble, &gen};
        Network net({std::make_shared<Sequential>(std::vector<LayerPtr>{
            std::make_shared<Linear>(6, 5, init), std::make_shared<ReLU>(), std::make_shared<Linear>(5, 4, init, false),
            std::make_shared<ReLU>(), std::make_shared<Linear>(4, 3, init)})});
        auto inputs = [&](int64_t b) { return at::randn({b, 6}, gen, kDouble); };
        auto classes = [&](int64_t b) { return at::randint(0, 3, {b}, gen, kLong); };
        checkLayouts("MLP", net, gen, inputs, multiclass(), classes, 3);
    }

    void sequenceLinearPerLayerKind() {
        // Linear on (B, T, d): each user's rows' positions pooled into one Gram matrix.
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(32);
        InitOptions init{kDouble, &gen};
        Network net({std::make_shared<Sequential>(std::vector<LayerPtr>{
            std::make_shared<Linear>(3, 4, init), std::make_shared<ReLU>(), std::make_shared<Linear>(4, 5, init),
            std::make_shared<MeanOverTimeLayer>(), std::make_shared<Linear>(5, 1, init)})});
        auto inputs = [&](int64_t b) { return at::randn({b, 4, 3}, gen, kDouble); };
        auto labels = [&](int64_t b) { return at::randint(0, 2, {b}, gen, kDouble); };
        checkLayouts("sequence Linear", net, gen, inputs, binary(), labels, 1);
    }

    void convolutionsAndGroupNormPerLayerKind() {
        // C_in·k² = 18 (the batched-product route) and 72 (the users-as-groups convolution),
        // stride 1 and 2, padding, a convolution without bias, GroupNorm's affine parameters.
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(33);
        InitOptions init{kDouble, &gen};
        Network net({std::make_shared<Sequential>(std::vector<LayerPtr>{
                         std::make_shared<Conv2d>(2, 8, 3, 1, 1, init), std::make_shared<GroupNorm>(2, 8, init),
                         std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2)}),
                     std::make_shared<Sequential>(std::vector<LayerPtr>{
                         std::make_shared<Conv2d>(8, 6, 3, 2, 1, init, false), std::make_shared<GroupNorm>(3, 6, init),
                         std::make_shared<ReLU>(), std::make_shared<Flatten>()}),
                     std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Linear>(24, 3, init)})});
        for (Tensor* p : net.parameters()) {
            at::NoGradGuard g;
            p->add_(at::randn(p->sizes(), gen, kDouble) * 0.3);
        }
        auto inputs = [&](int64_t b) { return at::randn({b, 2, 8, 8}, gen, kDouble); };
        auto classes = [&](int64_t b) { return at::randint(0, 3, {b}, gen, kLong); };
        checkLayouts("conv + GroupNorm", net, gen, inputs, multiclass(), classes, 3);
    }

    void transformerLayersPerLayerKind() {
        // The LM's layers: token and positional embeddings (a repeated token), a transformer block
        // (LayerNorm, attention's q,k,v and output Linear layers, the GELU MLP), LayerNorm, head.
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(34);
        InitOptions init{kDouble, &gen};
        Network net({std::make_shared<Sequential>(std::vector<LayerPtr>{
                         std::make_shared<Embedding>(7, 8, init), std::make_shared<PositionalEmbedding>(6, 8, init)}),
                     std::make_shared<TransformerBlock>(8, 2, init),
                     std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<LayerNorm>(8, init),
                                                                        std::make_shared<MeanOverTimeLayer>(),
                                                                        std::make_shared<Linear>(8, 3, init)})});
        auto tokens = [&](int64_t b) {
            Tensor idx = at::randint(0, 7, {b, 5}, gen, kLong);
            idx[0][1] = idx[0][3];  // a token repeated within a row
            return idx;
        };
        auto classes = [&](int64_t b) { return at::randint(0, 3, {b}, gen, kLong); };
        checkLayouts("transformer", net, gen, tokens, multiclass(), classes, 3);
    }

    void modelsFromSpecsPerLayerKind() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(35);
        auto cnnSpec = ModelSpecBuilder().kind(ModelKind::SmallCnn).input(1, 8, 8).outputs(1).convWidths(4, 4);
        Network cnn = buildNetwork(cnnSpec.hidden(5).normGroups(2).build().value(), gen, kDouble);
        auto grey = [&](int64_t b) { return at::randn({b, 1, 8, 8}, gen, kDouble); };
        auto labels = [&](int64_t b) { return at::randint(0, 2, {b}, gen, kDouble); };
        checkLayouts("small CNN", cnn, gen, grey, binary(), labels, 1);
        auto resnetSpec = ModelSpecBuilder().kind(ModelKind::ResNet18).input(3, 8, 8).outputs(2).resnetWidth(4);
        Network resnet = buildNetwork(resnetSpec.normGroups(2).build().value(), gen, kDouble);
        resnet.trainOnlyLastBlocks(4);
        auto colour = [&](int64_t b) { return at::randn({b, 3, 8, 8}, gen, kDouble); };
        auto classes = [&](int64_t b) { return at::randint(0, 2, {b}, gen, kLong); };
        checkLayouts("ResNet-18", resnet, gen, colour, multiclass(), classes, 2);
    }

    void theDefaultRouteChoiceFollowsTheFlopCount() {
        // Users of 3 rows (86 users of a 256-image batch, as bench_dp_step --user-level 3):
        // a wide 2-D Linear layer takes the per-user Gram blocks; a first convolution with 784
        // positions materialises; a late ResNet convolution (16 positions) takes the Gram blocks.
        std::vector<int64_t> rows;
        for (int64_t b = 0; b < 256; ++b) rows.push_back(b / 3);
        const UserRows users(at::tensor(rows, kLong), at::bincount(at::tensor(rows, kLong)));
        QCOMPARE(users.users, int64_t{86});
        // Two buckets, both laid out as the rows are: users 0–84 of 3 rows, user 85 of 1 row.
        QCOMPARE(users.buckets.size(), std::size_t{2});
        QCOMPARE(users.buckets[0].maxRows, int64_t{1});
        QCOMPARE(users.buckets[0].firstRow, int64_t{255});
        QCOMPARE(users.buckets[1].maxRows, int64_t{3});
        QCOMPARE(users.buckets[1].firstRow, int64_t{0});
        QCOMPARE(users.paddedRows(), int64_t{256});
        auto route = [&](int64_t t, double in, double out) {
            return chooseUserNormRoute(NormStrategy::Auto, users, t, in + out, 256.0 * t * in * out);
        };
        QVERIFY(route(1, 3136, 128) == UserNormRoute::Gram);
        QVERIFY(route(784, 9, 32) == UserNormRoute::Materialise);
        QVERIFY(route(16, 4608, 512) == UserNormRoute::Gram);
        QVERIFY(chooseUserNormRoute(NormStrategy::Materialise, users, 1, 1, 1e30) == UserNormRoute::Materialise);
        QVERIFY(chooseUserNormRoute(NormStrategy::Ghost, users, 1000, 1e9, 1) == UserNormRoute::Gram);
        // Users of 1, 3 and 4 rows, interleaved: user 0 alone in bucket {1}; users 1 and 2 share
        // bucket (2, 4], user 1's 3 rows padded by a zero row.
        const std::vector<int64_t> rowsOf{2, 1, 2, 0, 1, 2, 1, 2};
        const UserRows uneven(at::tensor(rowsOf, kLong), at::tensor(std::vector<int64_t>{1, 3, 4}, kLong));
        QCOMPARE(uneven.buckets.size(), std::size_t{2});
        QCOMPARE(uneven.buckets[1].maxRows, int64_t{4});
        QCOMPARE(uneven.buckets[1].firstRow, int64_t{-1});
        QCOMPARE(uneven.paddedRows(), int64_t{9});
        const Tensor x = at::arange(1, 9, kDouble).unsqueeze(1) * 10;  // row b holds 10·(b + 1)
        auto values = [](const Tensor& t) { return t.reshape({-1}); };
        auto list = [](std::vector<double> v) { return at::tensor(v, kDouble); };
        QVERIFY(at::equal(values(uneven.grouped(x, uneven.buckets[0])), list({40})));
        QVERIFY(at::equal(values(uneven.grouped(x, uneven.buckets[1])), list({20, 50, 70, 0, 10, 30, 60, 80})));
        QVERIFY(at::equal(values(uneven.groupedByRank(x, uneven.buckets[1])), list({20, 10, 50, 30, 70, 60, 0, 80})));
        QVERIFY(at::equal(uneven.collect([](const UserRows::Bucket& b) { return b.user.to(at::kDouble) + 1; }),
                          list({1, 2, 3})));
        // Ordered rows of equal users: the layout is the batch itself (no copy), by rank interleaved.
        const UserRows ordered(at::tensor(std::vector<int64_t>{0, 0, 1, 1}, kLong),
                               at::tensor(std::vector<int64_t>{2, 2}, kLong));
        QCOMPARE(ordered.buckets.size(), std::size_t{1});
        QCOMPARE(ordered.buckets[0].firstRow, int64_t{0});
        const Tensor y = x.narrow(0, 0, 4);
        QVERIFY(ordered.grouped(y, ordered.buckets[0]).data_ptr() == y.data_ptr());
        QVERIFY(at::equal(values(ordered.grouped(y, ordered.buckets[0])), list({10, 20, 30, 40})));
        QVERIFY(at::equal(values(ordered.groupedByRank(y, ordered.buckets[0])), list({10, 30, 20, 40})));
    }

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

    void floatFirstConvolutionByTheKernelMatchesTheDefinition() {
        // In float32 the first convolution's per-user sums come from the per-example kernel
        // (conv_example_kernel.h); against the float32 one-user-at-a-time reference.
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(24);
        InitOptions init{at::TensorOptions().dtype(at::kFloat), &gen};
        auto conv = std::make_shared<Conv2d>(1, 4, 3, 1, 1, init);
        Network net({std::make_shared<Sequential>(
                         std::vector<LayerPtr>{conv, std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2)}),
                     std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Flatten>(),
                                                                        std::make_shared<Linear>(4 * 36, 3, init)})});
        Tensor x = at::randn({11, 1, 12, 12}, gen, at::kFloat);
        Tensor y = at::randint(0, 3, {11}, gen, kLong);
        Tape tape;
        net.forward(x, &tape);
        QVERIFY(
            !conv->kernelExampleGradients(tape.captures.at(0), at::randn({11, 4, 12, 12}, gen, at::kFloat)).empty());
        const std::vector<int64_t> userOf = interleavedUsers(11, 4);
        std::vector<double> norms;
        naiveUserClippedSum(net, x, y, userOf, 4, multiclass(), INFINITY, &norms);
        for (double c : {testing::medianOf(norms), static_cast<double>(INFINITY)}) {
            const auto expected = naiveUserClippedSum(net, x, y, userOf, 4, multiclass(), c);
            Tensor got = vectorisedUserSum(net, x, y, userOf, 4, multiclass(), c);
            const double err = maxRelativeError(net, expected);
            QVERIFY2(err < 1e-5, str("C ", c, ": max relative error ", err).c_str());
            for (int64_t u = 0; u < 4; ++u)
                QVERIFY(std::abs(got[u].item<double>() - norms[static_cast<std::size_t>(u)]) <= 1e-5 * (1 + norms[u]));
        }
    }

    void smallCnnAndResNetFromSpecsMatchTheDefinition() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(22);
        Network cnn = buildNetwork(testing::tinyGroupNormCnn(), gen, kDouble);
        checkAgainstNaive(cnn, at::randn({9, 1, 8, 8}, gen, kDouble), at::randint(0, 2, {9}, gen, kDouble),
                          interleavedUsers(9, 3), 3, binary());
        Network resnet = buildNetwork(ModelSpecBuilder()
                                          .kind(ModelKind::ResNet18)
                                          .input(3, 8, 8)
                                          .outputs(2)
                                          .resnetWidth(4)
                                          .normGroups(2)
                                          .build()
                                          .value(),
                                      gen, kDouble);
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
            Tensor norms =
                vectorisedUserSum(net, at::cat({others, heavy}), at::cat({yOthers, yHeavy}), users, 6, multiclass(), c);
            double sq = 0;
            const auto params = net.trainableParameters();
            for (std::size_t i = 0; i < params.size(); ++i)
                sq += (params[i]->grad() - without[i]).pow(2).sum().item<double>();
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
        vectorisedUserSum(net, x.index_select(0, keep), y.index_select(0, keep), {0, 1, 2, 0, 1, 2}, 3, multiclass(),
                          0.5);
        const auto without = gradients(net);
        Tensor poisoned = x.clone();
        poisoned[7].fill_(std::numeric_limits<double>::infinity());
        Tensor norms = vectorisedUserSum(net, poisoned, y, users, 4, multiclass(), 0.5);
        QVERIFY(maxRelativeError(net, without) < 1e-9);
        QVERIFY(!std::isfinite(norms[3].item<double>()));
        QVERIFY(std::isfinite(gradNorm(net)));
        // On every per-user route (the Gram trick, per-user sums, both convolution routes) and
        // with user 3 of 5 rows in a bucket of its own beside three users of 1 row.
        const std::vector<int64_t> skewed{3, 0, 3, 1, 3, 2, 3, 3};
        Tensor keepSkewed = at::tensor(std::vector<int64_t>{1, 3, 5}, kLong);
        for (NormStrategy s : {NormStrategy::Ghost, NormStrategy::Materialise, NormStrategy::MaterialiseGrouped}) {
            net.setNormStrategy(s);
            for (const auto& [layout, keptRows, keptUsers] :
                 {std::tuple{users, keep, std::vector<int64_t>{0, 1, 2, 0, 1, 2}},
                  std::tuple{skewed, keepSkewed, std::vector<int64_t>{0, 1, 2}}}) {
                vectorisedUserSum(net, x.index_select(0, keptRows), y.index_select(0, keptRows), keptUsers, 3,
                                  multiclass(), 0.5);
                const auto expected = gradients(net);
                Tensor got = vectorisedUserSum(net, poisoned, y, layout, 4, multiclass(), 0.5);
                QVERIFY2(maxRelativeError(net, expected) < 1e-9, str("strategy ", int(s)).c_str());
                QVERIFY(std::isnan(got[3].item<double>()));
                QVERIFY(std::isfinite(got.narrow(0, 0, 3).sum().item<double>()));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestUserLevelClipping)
#include "tst_user_level_clipping.moc"
