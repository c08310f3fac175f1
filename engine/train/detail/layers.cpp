// Layer wrappers and their per-example gradient algebra (see layers.h for why they exist).
//
// Notation: B examples; a = the layer input a parameter multiplies, g = d(Σ_b ℓ_b)/d output.
// Because the loss is a sum of per-example losses, example b's gradient involves only a_b, g_b.
#include "engine/train/detail/layers.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

#include "engine/train/detail/conv_example_kernel.h"
#include "engine/train/detail/parallel_ranges.h"

namespace dpmix::train::detail {

namespace {

at::Generator& requireGenerator(const InitOptions& init) {
    // Never fall back to torch's global generator: it is shared by every job in the process.
    if (init.generator == nullptr) throw std::invalid_argument("layer initialisation needs an explicit generator");
    return *init.generator;
}

Tensor uniformParameter(at::IntArrayRef sizes, double bound, const InitOptions& init) {
    Tensor t = at::empty(sizes, init.tensor);
    t.uniform_(-bound, bound, requireGenerator(init));
    return t.set_requires_grad(true);
}

// Σ_b weights_b · perExample_b, reshaped to `like`.
Tensor weightedSum(const Tensor& weights, const Tensor& perExample, const Tensor& like) {
    const int64_t b = perExample.size(0);
    return weights.unsqueeze(0).mm(perExample.reshape({b, -1})).reshape(like.sizes());
}

bool useGhost(NormStrategy strategy, double ghostCost, double materialiseCost) {
    if (strategy == NormStrategy::Ghost) return true;
    if (strategy == NormStrategy::Materialise || strategy == NormStrategy::MaterialiseGrouped) return false;
    return ghostCost < materialiseCost;
}

// Per user, Σ over pairs of the user's positions p, q of K(a)_pq (g_p·g_q) = ‖Σ_{b∈u} ∇ℓ_b‖² for
// a layer whose example gradient is Σ_t g_bt ⊗ (what a_bt stands for): K = the Gram matrix of a
// (Linear, Conv2d on its patches) or the same-index indicator (Embedding). a is (B, T, d) or
// (B, T), g is (B, T, p); `kernel` maps (U, N, d) or (U, N) to (U, N, N). One (maxRows·T)²
// block per user; padding rows have g = 0 and add nothing.
Tensor userGramNorms(const UserRows& users, const Tensor& a, const Tensor& g,
                     const std::function<Tensor(const Tensor&)>& kernel) {
    return users.collect([&](const UserRows::Bucket& bucket) {
        Tensor gu = users.grouped(g, bucket);
        return (kernel(users.grouped(a, bucket)).to(g.scalar_type()) * at::bmm(gu, gu.transpose(1, 2))).sum({1, 2});
    });
}

Tensor gramOf(const Tensor& x) { return at::matmul(x, x.transpose(-1, -2)); }
Tensor sameIndex(const Tensor& idx) { return idx.unsqueeze(-1).eq(idx.unsqueeze(-2)); }

}  // namespace

// ---- UserRows ----------------------------------------------------------------------------------

UserRows::UserRows(const Tensor& userOf, const Tensor& count)
    : users(count.size(0)), rows(userOf.size(0)), userOfRow(userOf), rowCount(count) {
    // Built on the CPU (a few hundred rows), then moved to the batch's device.
    const Tensor userCpu = userOf.to(at::kCPU).contiguous(), countCpu = count.to(at::kCPU).contiguous();
    const int64_t* userOfRowCpu = userCpu.data_ptr<int64_t>();
    const int64_t* rowsOfUser = countCpu.data_ptr<int64_t>();
    auto bucketIndex = [](int64_t n) {
        int k = 0;
        while ((int64_t{1} << k) < n) ++k;
        return k;
    };
    std::map<int, std::vector<int64_t>> members;
    for (int64_t u = 0; u < users; ++u) members[bucketIndex(rowsOfUser[u])].push_back(u);
    std::vector<std::size_t> bucketOf(static_cast<std::size_t>(users));
    std::vector<int64_t> place(static_cast<std::size_t>(users)), nextRank(static_cast<std::size_t>(users), 0);
    for (const auto& [k, list] : members) {
        Bucket bucket;
        bucket.users = static_cast<int64_t>(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto u = static_cast<std::size_t>(list[i]);
            bucket.maxRows = std::max(bucket.maxRows, rowsOfUser[u]);
            place[u] = static_cast<int64_t>(i);
            bucketOf[u] = buckets.size();
        }
        bucket.user = at::tensor(list, at::kLong).to(userOf.device());
        buckets.push_back(bucket);
    }
    std::vector<std::vector<int64_t>> row(buckets.size()), slotOf(buckets.size()), slotByRankOf(buckets.size());
    for (int64_t b = 0; b < rows; ++b) {
        const auto u = static_cast<std::size_t>(userOfRowCpu[b]);
        const std::size_t k = bucketOf[u];
        const int64_t rank = nextRank[u]++;
        row[k].push_back(b);
        slotOf[k].push_back(place[u] * buckets[k].maxRows + rank);
        slotByRankOf[k].push_back(rank * buckets[k].users + place[u]);
    }
    for (std::size_t k = 0; k < buckets.size(); ++k) {
        Bucket& bucket = buckets[k];
        bool asTheyAre = static_cast<int64_t>(row[k].size()) == bucket.users * bucket.maxRows;
        for (std::size_t j = 0; asTheyAre && j < row[k].size(); ++j)
            asTheyAre = row[k][j] == row[k][0] + static_cast<int64_t>(j) && slotOf[k][j] == static_cast<int64_t>(j);
        if (asTheyAre) bucket.firstRow = row[k][0];
        bucket.row = at::tensor(row[k], at::kLong).to(userOf.device());
        bucket.slot = at::tensor(slotOf[k], at::kLong).to(userOf.device());
        bucket.slotByRank = at::tensor(slotByRankOf[k], at::kLong).to(userOf.device());
    }
}

int64_t UserRows::paddedRows() const {
    int64_t n = 0;
    for (const Bucket& bucket : buckets) n += bucket.users * bucket.maxRows;
    return n;
}

Tensor UserRows::grouped(const Tensor& x, const Bucket& bucket) const {
    const int64_t slots = bucket.users * bucket.maxRows;
    Tensor laid;  // (slots, s1, s2, …)
    if (bucket.firstRow >= 0) {
        laid = x.narrow(0, bucket.firstRow, slots);
    } else {
        std::vector<int64_t> shape = x.sizes().vec();
        shape[0] = slots;
        laid = at::zeros(shape, x.options())
                   .index_copy_(0, bucket.slot, bucket.row.size(0) == rows ? x : x.index_select(0, bucket.row));
    }
    std::vector<int64_t> shape{bucket.users, bucket.maxRows * (x.dim() > 1 ? x.size(1) : 1)};
    for (int64_t i = 2; i < x.dim(); ++i) shape.push_back(x.size(i));
    return laid.reshape(shape);
}

Tensor UserRows::groupedByRank(const Tensor& x, const Bucket& bucket) const {
    const int64_t slots = bucket.users * bucket.maxRows;
    std::vector<int64_t> shape = x.sizes().vec();
    Tensor laid;  // rank-major: (maxRows·users, C, s…)
    if (bucket.firstRow >= 0) {
        Tensor part = x.narrow(0, bucket.firstRow, slots);
        std::vector<int64_t> userMajor{bucket.users, bucket.maxRows};
        userMajor.insert(userMajor.end(), shape.begin() + 1, shape.end());
        laid = bucket.maxRows == 1 ? part : part.reshape(userMajor).transpose(0, 1);
    } else {
        shape[0] = slots;
        laid = at::zeros(shape, x.options())
                   .index_copy_(0, bucket.slotByRank, bucket.row.size(0) == rows ? x : x.index_select(0, bucket.row));
    }
    shape = x.sizes().vec();
    shape[0] = bucket.maxRows;
    shape[1] *= bucket.users;
    return laid.reshape(shape);
}

Tensor UserRows::sumByUser(const Tensor& x) const {
    return at::zeros({users, x.size(1)}, x.options()).index_add_(0, userOfRow, x);
}

Tensor UserRows::collect(const std::function<Tensor(const Bucket&)>& perBucket) const {
    if (buckets.size() == 1) return perBucket(buckets[0]);  // its users are 0 … users − 1, in order
    Tensor out;
    for (const Bucket& bucket : buckets) {
        Tensor part = perBucket(bucket);
        if (!out.defined()) {
            std::vector<int64_t> shape = part.sizes().vec();
            shape[0] = users;
            out = at::zeros(shape, part.options());
        }
        out.index_copy_(0, bucket.user, part);
    }
    return out;
}

UserNormRoute chooseUserNormRoute(NormStrategy strategy, const UserRows& users, int64_t positions, double pairCost,
                                  double materialiseCost) {
    if (strategy == NormStrategy::Materialise || strategy == NormStrategy::MaterialiseGrouped)
        return UserNormRoute::Materialise;
    if (strategy == NormStrategy::Ghost) return UserNormRoute::Gram;
    double gram = 0;
    for (const UserRows::Bucket& bucket : users.buckets) {
        const double block = static_cast<double>(bucket.maxRows * positions);
        gram += static_cast<double>(bucket.users) * block * block * pairCost;
    }
    return gram < materialiseCost ? UserNormRoute::Gram : UserNormRoute::Materialise;
}

// ---- TrainableLayer ----------------------------------------------------------------------------

void TrainableLayer::setFrozen(bool frozen) {
    frozen_ = frozen;
    for (Tensor* p : parameters()) p->set_requires_grad(!frozen);
}

Tensor TrainableLayer::perUserSquaredNorms(Capture& c, const Tensor& gradOutput, const UserRows& users) {
    Tensor n = at::zeros({users.users}, gradOutput.options());
    c.perUserGrads.clear();
    for (const Tensor& perExample : perExampleGradients(c, gradOutput)) {
        c.perUserGrads.push_back(users.sumByUser(perExample.reshape({users.rows, -1})));
        n = n + c.perUserGrads.back().pow(2).sum(1);
    }
    return n;
}

Tensor TrainableLayer::record(Tape* tape, const Tensor& input, const Tensor& output) {
    if (tape != nullptr && !frozen_) tape->captures.push_back(Capture{this, input, output, {}});
    return output;
}

// ---- Linear ------------------------------------------------------------------------------------

Linear::Linear(int64_t in, int64_t out, const InitOptions& init, bool withBias) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    weight = uniformParameter({out, in}, bound, init);
    if (withBias) bias = uniformParameter({out}, bound, init);
}

Tensor Linear::forward(const Tensor& x, Tape* tape) {
    return record(tape, x, at::linear(x, weight, bias.defined() ? c10::optional<Tensor>(bias) : c10::nullopt));
}

std::vector<Tensor*> Linear::parameters() {
    if (bias.defined()) return {&weight, &bias};
    return {&weight};
}

Tensor Linear::perExampleSquaredNorms(Capture& c, const Tensor& gradOutput) {
    const int64_t b = c.input.size(0), in = weight.size(1), out = weight.size(0);
    if (c.input.dim() == 2) {
        // ∇W_b = g_b a_bᵀ is rank one: ‖∇W_b‖² = ‖g_b‖²‖a_b‖², ‖∇bias_b‖² = ‖g_b‖².
        Tensor gsq = gradOutput.pow(2).sum(1);
        Tensor n = gsq * c.input.pow(2).sum(1);
        return bias.defined() ? n + gsq : n;
    }
    // With a sequence dimension ∇W_b = Σ_t g_bt a_btᵀ.
    Tensor a = c.input.reshape({b, -1, in});
    Tensor g = gradOutput.reshape({b, -1, out});
    const double t = static_cast<double>(a.size(1));
    Tensor n;
    if (useGhost(strategy_, t * t * static_cast<double>(in + out), t * static_cast<double>(in * out))) {
        // Gram trick: ‖Σ_t g_t a_tᵀ‖²_F = Σ_{t,s} (a_t·a_s)(g_t·g_s).
        n = (at::bmm(a, a.transpose(1, 2)) * at::bmm(g, g.transpose(1, 2))).sum({1, 2});
    } else {
        Tensor perExample = at::bmm(g.transpose(1, 2), a);  // (B, out, in)
        n = perExample.pow(2).sum({1, 2});
        c.perExampleGrads = {perExample};
    }
    if (bias.defined()) n = n + g.sum(1).pow(2).sum(1);
    return n;
}

std::vector<Tensor> Linear::weightedGradients(Capture& c, const Tensor& gradOutput, const Tensor& w) {
    const int64_t b = c.input.size(0), in = weight.size(1), out = weight.size(0);
    std::vector<Tensor> grads;
    // Scaling each example's output gradient by its weight turns the ordinary batch gradient
    // into the weighted sum (the "book-keeping" trick: no second backward pass).
    std::vector<int64_t> shape(static_cast<size_t>(gradOutput.dim()), 1);
    shape[0] = b;
    Tensor gw = (gradOutput * w.reshape(shape)).reshape({-1, out});
    if (!c.perExampleGrads.empty()) {
        grads.push_back(weightedSum(w, c.perExampleGrads[0], weight));
    } else {
        grads.push_back(gw.t().mm(c.input.reshape({-1, in})));
    }
    if (bias.defined()) grads.push_back(gw.sum(0));
    return grads;
}

std::vector<Tensor> Linear::perExampleGradients(Capture& c, const Tensor& gradOutput) {
    const int64_t b = c.input.size(0), in = weight.size(1), out = weight.size(0);
    Tensor a = c.input.reshape({b, -1, in});
    Tensor g = gradOutput.reshape({b, -1, out});
    std::vector<Tensor> grads{at::bmm(g.transpose(1, 2), a).reshape({b, -1})};  // Σ_t g_bt a_btᵀ
    if (bias.defined()) grads.push_back(g.sum(1));
    return grads;
}

Tensor Linear::perUserSquaredNorms(Capture& c, const Tensor& gradOutput, const UserRows& users) {
    const int64_t b = c.input.size(0), in = weight.size(1), out = weight.size(0);
    Tensor a = c.input.reshape({b, -1, in});
    Tensor g = gradOutput.reshape({b, -1, out});
    const int64_t t = a.size(1);
    // User u's gradient Σ_{b∈u} Σ_t g_bt a_btᵀ is one Linear gradient over all its rows' positions.
    const double materialise = static_cast<double>(users.paddedRows() * t) * static_cast<double>(in * out);
    const UserNormRoute route = chooseUserNormRoute(strategy_, users, t, static_cast<double>(in + out), materialise);
    c.perUserGrads.clear();
    Tensor n;
    if (route == UserNormRoute::Materialise) {
        Tensor perUser = users.collect([&](const UserRows::Bucket& bucket) {
            return at::bmm(users.grouped(g, bucket).transpose(1, 2), users.grouped(a, bucket))
                .reshape({bucket.users, -1});
        });
        n = perUser.pow(2).sum(1);
        c.perUserGrads.push_back(perUser);
    } else {
        n = userGramNorms(users, a, g, gramOf);
    }
    if (bias.defined()) {
        Tensor perUserBias = users.sumByUser(g.sum(1));
        n = n + perUserBias.pow(2).sum(1);
        if (!c.perUserGrads.empty()) c.perUserGrads.push_back(perUserBias);
    }
    return n;
}

// ---- Conv2d ------------------------------------------------------------------------------------

Conv2d::Conv2d(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, const InitOptions& init, bool withBias)
    : kernel(k), stride(s), padding(p) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in * k * k));
    weight = uniformParameter({out, in, k, k}, bound, init);
    if (withBias) bias = uniformParameter({out}, bound, init);
}

Tensor Conv2d::forward(const Tensor& x, Tape* tape) {
    return record(tape, x,
                  at::conv2d(x, weight, bias.defined() ? c10::optional<Tensor>(bias) : c10::nullopt, {stride, stride},
                             {padding, padding}));
}

std::vector<Tensor*> Conv2d::parameters() {
    if (bias.defined()) return {&weight, &bias};
    return {&weight};
}

Tensor Conv2d::perExampleSquaredNorms(Capture& c, const Tensor& gradOutput) {
    const int64_t b = c.input.size(0), in = c.input.size(1), out = weight.size(0);
    Tensor g = gradOutput.reshape({b, out, -1});
    const double d = static_cast<double>(in * kernel * kernel), l = static_cast<double>(g.size(2));
    if (useGhost(strategy_, l * l * (d + static_cast<double>(out)), static_cast<double>(out) * d * l)) {
        // With the patches U_b (L × C_in·k²), ∇W_b = g_b U_b and
        // ‖∇W_b‖² = Σ_{p,q} (U_b U_bᵀ)_{pq} (g_bᵀ g_b)_{pq}: cheap when L is small.
        Tensor u = patches(c.input);
        Tensor n = (at::bmm(u, u.transpose(1, 2)) * at::bmm(g.transpose(1, 2), g)).sum({1, 2});
        if (bias.defined()) n = n + g.sum(2).pow(2).sum(1);
        return n;
    }
    c.perExampleGrads = perExampleGradients(c, gradOutput);  // weight and bias, (B, ·) each
    Tensor n = c.perExampleGrads[0].pow(2).sum(1);
    if (bias.defined()) n = n + c.perExampleGrads[1].pow(2).sum(1);
    return n;
}

Tensor Conv2d::perExampleWeightGradients(const Capture& c, const Tensor& gradOutput) const {
    const int64_t b = c.input.size(0), in = c.input.size(1), out = weight.size(0);
    if (std::vector<Tensor> grads = kernelExampleGradients(c, gradOutput); !grads.empty())
        return grads[0].view({b, out, in * kernel * kernel});
    if (in * kernel * kernel <= 64 && strategy_ != NormStrategy::MaterialiseGrouped) {
        // Few input channels (e.g. the first layer on grey images): the patches are small, and
        // one batched product g_b U_b is cheap. (The grouped convolution below was measured
        // several times slower here: with one channel per group it cannot use wide kernels.)
        return at::bmm(gradOutput.reshape({b, out, -1}), patches(c.input));  // (B, C_out, C_in·k²)
    }
    // Per-example gradients in one native call: treat the batch as B convolution groups,
    // whose weight gradient, group by group, is each example's own gradient. Measured as
    // fast as the ordinary (summed) weight gradient, and far faster than unfold + bmm.
    const int64_t h = c.input.size(2), w = c.input.size(3);
    Tensor groupedWeight = at::zeros({b * out, in, kernel, kernel}, weight.options());
    auto grads =
        at::convolution_backward(gradOutput.reshape({1, b * out, gradOutput.size(2), gradOutput.size(3)}),
                                 c.input.reshape({1, b * in, h, w}), groupedWeight, c10::nullopt, {stride, stride},
                                 {padding, padding}, {1, 1}, false, {0, 0}, b, {false, true, false});
    return std::get<1>(grads).reshape({b, out, in * kernel * kernel});
}

Tensor Conv2d::perUserWeightGradients(const Capture& c, const Tensor& gradOutput, const UserRows& users) const {
    const int64_t b = c.input.size(0), in = c.input.size(1), out = weight.size(0), d = in * kernel * kernel;
    // Few channels: each example's gradient by the kernel (B × C_out·d numbers), summed by user.
    if (std::vector<Tensor> grads = kernelExampleGradients(c, gradOutput); !grads.empty())
        return users.sumByUser(grads[0]);
    if (d <= 64 && strategy_ != NormStrategy::MaterialiseGrouped) {
        // As perExampleWeightGradients: one batched product, here over each user's rows' patches.
        Tensor g = gradOutput.reshape({b, out, -1}).transpose(1, 2);  // (B, L, C_out)
        Tensor u = patches(c.input);
        return users.collect([&](const UserRows::Bucket& bucket) {
            return at::bmm(users.grouped(g, bucket).transpose(1, 2), users.grouped(u, bucket))
                .reshape({bucket.users, -1});
        });
    }
    // The users as convolution groups and each user's rows as the batch: group u's weight
    // gradient is Σ_{b∈u} ∇W_b (the padding rows are zero), in one native call per bucket.
    return users.collect([&](const UserRows::Bucket& bucket) {
        Tensor groupedWeight = at::zeros({bucket.users * out, in, kernel, kernel}, weight.options());
        auto grads = at::convolution_backward(
            users.groupedByRank(gradOutput, bucket), users.groupedByRank(c.input, bucket), groupedWeight, c10::nullopt,
            {stride, stride}, {padding, padding}, {1, 1}, false, {0, 0}, bucket.users, {false, true, false});
        return std::get<1>(grads).reshape({bucket.users, out * d});
    });
}

Tensor Conv2d::perUserSquaredNorms(Capture& c, const Tensor& gradOutput, const UserRows& users) {
    const int64_t b = c.input.size(0), in = c.input.size(1), out = weight.size(0), d = in * kernel * kernel;
    Tensor g = gradOutput.reshape({b, out, -1});
    const int64_t l = g.size(2);
    // With the patches as a Linear layer's input over L positions (see perExampleSquaredNorms).
    const double materialise = static_cast<double>(users.paddedRows() * l) * static_cast<double>(out * d);
    const UserNormRoute route = chooseUserNormRoute(strategy_, users, l, static_cast<double>(d + out), materialise);
    c.perUserGrads.clear();
    Tensor n;
    if (route == UserNormRoute::Materialise) {
        Tensor perUser = perUserWeightGradients(c, gradOutput, users);
        n = perUser.pow(2).sum(1);
        c.perUserGrads.push_back(perUser);
    } else {
        n = userGramNorms(users, patches(c.input), g.transpose(1, 2), gramOf);
    }
    if (bias.defined()) {
        Tensor perUserBias = users.sumByUser(g.sum(2));
        n = n + perUserBias.pow(2).sum(1);
        if (!c.perUserGrads.empty()) c.perUserGrads.push_back(perUserBias);
    }
    return n;
}

std::vector<Tensor> Conv2d::kernelExampleGradients(const Capture& c, const Tensor& gradOutput) const {
    const Tensor& x = c.input;
    if (stride != 1 || strategy_ == NormStrategy::MaterialiseGrouped || x.dim() != 4 || !x.device().is_cpu() ||
        x.scalar_type() != at::kFloat || gradOutput.scalar_type() != at::kFloat)
        return {};
    const ConvExampleShape shape{x.size(1), x.size(2), x.size(3), weight.size(0), kernel, padding};
    const int64_t b = x.size(0), d = shape.channels * kernel * kernel;
    SimdLevel level = SimdLevel::Portable;
    // Many input channels: the grouped convolution's large products are faster (see below).
    if (d > 64 || !convExampleKernelLevel(shape, &level)) return {};
    if (gradOutput.sizes() != at::IntArrayRef{b, shape.outChannels, shape.outHeight(), shape.outWidth()})
        throw std::logic_error("Conv2d: output gradient of shape " + c10::str(gradOutput.sizes()) +
                               " does not match the layer's output");
    const Tensor xs = x.contiguous(), gs = gradOutput.contiguous();
    Tensor weightGrads = at::empty({b, shape.outChannels * d}, xs.options());
    Tensor biasGrads = bias.defined() ? at::empty({b, shape.outChannels}, xs.options()) : Tensor();
    const float* xData = xs.data_ptr<float>();
    const float* gData = gs.data_ptr<float>();
    float* wData = weightGrads.data_ptr<float>();
    float* bData = bias.defined() ? biasGrads.data_ptr<float>() : nullptr;
    const int64_t xStride = shape.channels * shape.height * shape.width;
    const int64_t gStride = shape.outChannels * shape.outHeight() * shape.outWidth();
    // Examples are independent: each thread takes a contiguous range with its own scratch.
    parallelRanges(b, at::get_num_threads(), [&](int64_t begin, int64_t end) {
        std::vector<float> scratch(static_cast<std::size_t>(convExampleScratchFloats(shape)));
        for (int64_t i = begin; i < end; ++i)
            convExampleGradients(level, shape, xData + i * xStride, gData + i * gStride, scratch.data(),
                                 wData + i * shape.outChannels * d,
                                 bData == nullptr ? nullptr : bData + i * shape.outChannels);
    });
    std::vector<Tensor> grads{weightGrads};
    if (bias.defined()) grads.push_back(biasGrads);
    return grads;
}

std::vector<Tensor> Conv2d::perExampleGradients(Capture& c, const Tensor& gradOutput) {
    if (std::vector<Tensor> grads = kernelExampleGradients(c, gradOutput); !grads.empty()) return grads;
    const int64_t b = c.input.size(0), out = weight.size(0);
    std::vector<Tensor> grads{perExampleWeightGradients(c, gradOutput).reshape({b, -1})};
    if (bias.defined()) grads.push_back(gradOutput.reshape({b, out, -1}).sum(2));
    return grads;
}

Tensor Conv2d::patches(const Tensor& x) const {
    // (B, C, H, W) → (B, L, C·k·k) as one strided copy (at::im2col measured 2–3× slower).
    Tensor xp = padding > 0 ? at::constant_pad_nd(x, {padding, padding, padding, padding}) : x.contiguous();
    const int64_t b = xp.size(0), ch = xp.size(1), hp = xp.size(2), wp = xp.size(3);
    const int64_t ho = (hp - kernel) / stride + 1, wo = (wp - kernel) / stride + 1;
    return xp.as_strided({b, ho, wo, ch, kernel, kernel}, {ch * hp * wp, stride * wp, stride, hp * wp, wp, 1})
        .contiguous()
        .view({b, ho * wo, ch * kernel * kernel});
}

std::vector<Tensor> Conv2d::weightedGradients(Capture& c, const Tensor& gradOutput, const Tensor& w) {
    const int64_t b = c.input.size(0);
    std::vector<Tensor> grads;
    if (!c.perExampleGrads.empty()) {
        grads.push_back(weightedSum(w, c.perExampleGrads[0], weight));
        if (bias.defined()) grads.push_back(weightedSum(w, c.perExampleGrads.at(1), bias));
        return grads;
    }
    // Ghost path: the native convolution weight gradient of the reweighted output gradient.
    Tensor gw = gradOutput * w.reshape({b, 1, 1, 1});
    auto [unusedInput, gradWeight, gradBias] = at::convolution_backward(
        gw, c.input, weight, bias.defined() ? c10::optional<at::IntArrayRef>(bias.sizes()) : c10::nullopt,
        {stride, stride}, {padding, padding}, {1, 1}, false, {0, 0}, 1, {false, true, bias.defined()});
    grads.push_back(gradWeight);
    if (bias.defined()) grads.push_back(gradBias);
    return grads;
}

// ---- GroupNorm ---------------------------------------------------------------------------------

GroupNorm::GroupNorm(int64_t g, int64_t channels, const InitOptions& init, double e) : groups(g), eps(e) {
    weight = at::ones({channels}, init.tensor).set_requires_grad(true);
    bias = at::zeros({channels}, init.tensor).set_requires_grad(true);
}

Tensor GroupNorm::forward(const Tensor& x, Tape* tape) {
    // Normalise without the affine map, then apply γ, β ourselves: the parameters then act on
    // the normalised input x̂ exactly like a per-channel diagonal linear layer.
    Tensor xhat = at::group_norm(x, groups, {}, {}, eps);
    std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
    shape[1] = x.size(1);
    return record(tape, xhat, xhat * weight.reshape(shape) + bias.reshape(shape));
}

std::vector<Tensor*> GroupNorm::parameters() { return {&weight, &bias}; }

Tensor GroupNorm::perExampleSquaredNorms(Capture& c, const Tensor& gradOutput) {
    const int64_t b = gradOutput.size(0), ch = gradOutput.size(1);
    Tensor g = gradOutput.reshape({b, ch, -1});
    Tensor gw = (g * c.input.reshape({b, ch, -1})).sum(2);  // ∇γ_b, (B, C)
    Tensor gb = g.sum(2);                                   // ∇β_b, (B, C)
    c.perExampleGrads = {gw, gb};
    return gw.pow(2).sum(1) + gb.pow(2).sum(1);
}

std::vector<Tensor> GroupNorm::weightedGradients(Capture& c, const Tensor&, const Tensor& w) {
    return {weightedSum(w, c.perExampleGrads.at(0), weight), weightedSum(w, c.perExampleGrads.at(1), bias)};
}

std::vector<Tensor> GroupNorm::perExampleGradients(Capture& c, const Tensor& gradOutput) {
    const int64_t b = gradOutput.size(0), ch = gradOutput.size(1);
    Tensor g = gradOutput.reshape({b, ch, -1});
    return {(g * c.input.reshape({b, ch, -1})).sum(2), g.sum(2)};
}

// ---- Embedding ---------------------------------------------------------------------------------

Embedding::Embedding(int64_t count, int64_t dim, const InitOptions& init) {
    weight = at::empty({count, dim}, init.tensor);
    weight.normal_(0.0, 1.0, requireGenerator(init));
    weight.set_requires_grad(true);
}

Tensor Embedding::forward(const Tensor& indices, Tape* tape) {
    return record(tape, indices, at::embedding(weight, indices));
}

std::vector<Tensor*> Embedding::parameters() { return {&weight}; }

Tensor Embedding::perExampleSquaredNorms(Capture& c, const Tensor& gradOutput) {
    const int64_t b = c.input.size(0), dim = weight.size(1);
    Tensor idx = c.input.reshape({b, -1});
    Tensor g = gradOutput.reshape({b, -1, dim});
    // ∇W_b = Σ_t e_{idx_t} g_tᵀ: rows add up when an index repeats, so
    // ‖∇W_b‖² = Σ_{t,s} [idx_t = idx_s] g_t·g_s.
    Tensor same = idx.unsqueeze(2).eq(idx.unsqueeze(1)).to(g.scalar_type());
    return (same * at::bmm(g, g.transpose(1, 2))).sum({1, 2});
}

std::vector<Tensor> Embedding::weightedGradients(Capture& c, const Tensor& gradOutput, const Tensor& w) {
    const int64_t b = c.input.size(0), dim = weight.size(1);
    Tensor gw = gradOutput.reshape({b, -1, dim}) * w.reshape({b, 1, 1});
    Tensor grad = at::zeros_like(weight);
    grad.index_add_(0, c.input.reshape({-1}), gw.reshape({-1, dim}));
    return {grad};
}

std::vector<Tensor> Embedding::perExampleGradients(Capture& c, const Tensor& gradOutput) {
    const int64_t b = c.input.size(0), count = weight.size(0), dim = weight.size(1);
    // Row (b, idx) of a (B·count, dim) table: one index_add for the whole batch.
    Tensor idx = c.input.reshape({b, -1}) + at::arange(b, c.input.options()).unsqueeze(1) * count;
    Tensor grad = at::zeros({b * count, dim}, gradOutput.options());
    grad.index_add_(0, idx.reshape({-1}), gradOutput.reshape({-1, dim}));
    return {grad.reshape({b, count * dim})};
}

Tensor Embedding::perUserSquaredNorms(Capture& c, const Tensor& gradOutput, const UserRows& users) {
    const int64_t b = c.input.size(0), count = weight.size(0), dim = weight.size(1);
    Tensor idx = c.input.reshape({b, -1});
    Tensor g = gradOutput.reshape({b, -1, dim});
    const int64_t t = idx.size(1);
    // Materialising fills a (users·count, dim) table by one index_add of the B·T rows of g.
    const double materialise = static_cast<double>(users.users * count + b * t) * static_cast<double>(dim);
    const UserNormRoute route = chooseUserNormRoute(strategy_, users, t, static_cast<double>(dim), materialise);
    c.perUserGrads.clear();
    if (route == UserNormRoute::Gram) return userGramNorms(users, idx, g, sameIndex);
    Tensor perUser = at::zeros({users.users * count, dim}, g.options());
    perUser.index_add_(0, (idx + users.userOfRow.unsqueeze(1) * count).reshape({-1}), g.reshape({-1, dim}));
    c.perUserGrads.push_back(perUser.reshape({users.users, count * dim}));
    return c.perUserGrads.back().pow(2).sum(1);
}

// ---- parameter-free layers and containers ----------------------------------------------------

Tensor ReLU::forward(const Tensor& x, Tape*) { return at::relu(x); }
Tensor MaxPool2d::forward(const Tensor& x, Tape*) { return at::max_pool2d(x, {kernel_, kernel_}); }
Tensor AvgPool2d::forward(const Tensor& x, Tape*) { return at::avg_pool2d(x, {kernel_, kernel_}); }
Tensor GlobalAvgPool::forward(const Tensor& x, Tape*) { return x.mean({2, 3}); }
Tensor Flatten::forward(const Tensor& x, Tape*) { return x.flatten(1); }

Tensor Sequential::forward(const Tensor& x, Tape* tape) {
    Tensor h = x;
    for (const auto& layer : layers_) h = layer->forward(h, tape);
    return h;
}

std::vector<Tensor*> Sequential::parameters() {
    std::vector<Tensor*> out;
    for (const auto& layer : layers_)
        for (Tensor* p : layer->parameters()) out.push_back(p);
    return out;
}

void Sequential::setFrozen(bool frozen) {
    for (const auto& layer : layers_) layer->setFrozen(frozen);
}

std::vector<Layer*> Sequential::children() {
    std::vector<Layer*> out;
    for (const auto& layer : layers_) out.push_back(layer.get());
    return out;
}

std::vector<Layer*> Residual::children() {
    std::vector<Layer*> out{main_.get()};
    if (shortcut_) out.push_back(shortcut_.get());
    return out;
}

Tensor Residual::forward(const Tensor& x, Tape* tape) {
    Tensor skip = shortcut_ && !shortcut_->layers().empty() ? shortcut_->forward(x, tape) : x;
    return at::relu(main_->forward(x, tape) + skip);
}

std::vector<Tensor*> Residual::parameters() {
    std::vector<Tensor*> out = main_->parameters();
    if (shortcut_)
        for (Tensor* p : shortcut_->parameters()) out.push_back(p);
    return out;
}

void Residual::setFrozen(bool frozen) {
    main_->setFrozen(frozen);
    if (shortcut_) shortcut_->setFrozen(frozen);
}

}  // namespace dpmix::train::detail
