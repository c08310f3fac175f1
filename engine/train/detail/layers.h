#pragma once
// Internal (torch) header: the small layer wrappers every dpmix network is built from.
//
// Why our own layers instead of torch::nn: vectorised per-example clipping needs, for every
// trainable layer, the layer's input and the gradient of the loss with respect to its output.
// Each wrapper below writes its (input, output) pair to a Tape during a DP forward pass; the
// clipping code (ghost_clipping.h) asks autograd for d loss / d output of every recorded output
// in one backward pass and then computes per-example gradient norms and the clipped gradient
// sum from those pairs, layer by layer, without a loop over examples.
//
// Only included by engine/train .cpp files, tests and benchmarks (never by public headers).
#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dpmix::train::detail {

using at::Tensor;

class TrainableLayer;

/// One application of a trainable layer in a forward pass.
struct Capture {
    TrainableLayer* layer = nullptr;
    Tensor input;                         // what the parameters multiply (GroupNorm: the normalised input)
    Tensor output;                        // the layer's output; autograd is asked for d loss / d output
    std::vector<Tensor> perExampleGrads;  // filled when a layer materialises them
    std::vector<Tensor> perUserGrads;     // user-level clipping: (users, P_i) when a layer materialises them
};

/// Records trainable-layer applications during a DP forward pass.
struct Tape {
    std::vector<Capture> captures;
    void clear() { captures.clear(); }
};

/// How a layer computes per-example gradient norms.
enum class NormStrategy {
    Auto,                // the cheaper of the two by a flop count
    Ghost,               // never materialise per-example gradients (Gram-matrix trick)
    Materialise,         // build per-example gradients, then take their norms
    MaterialiseGrouped,  // as Materialise, convolutions always by the grouped-convolution route (tests)
};

/// The rows of a batch grouped by user, for user-level clipping (ghost_clipping.h). Users are
/// put in buckets by their number of rows n — n = 1, 2, 3–4, 5–8, … (n in (2^(k−1), 2^k]) — and
/// within a bucket each user's rows fill the bucket's `maxRows` consecutive slots of a
/// zero-padded layout, in row order, zero rows after a user with fewer rows: padding at most
/// doubles a user's rows, however unequal the users are.
struct UserRows {
    /// `userOfRow`: long (B), values in [0, users); `rowCount`: |u|, long (users), every |u| ≥ 1
    /// (the caller checks both).
    UserRows(const Tensor& userOfRow, const Tensor& rowCount);
    /// Rows' slots: p = the place of the row's user among the bucket's users, r = the row's rank
    /// among its user's rows.
    struct Bucket {
        int64_t users = 0, maxRows = 0;
        Tensor user;        // long (users): the bucket's users, ascending
        Tensor row;         // long (R): the bucket's rows, ascending
        Tensor slot;        // long (R): p · maxRows + r
        Tensor slotByRank;  // long (R): r · users + p
        /// ≥ 0 when the layout is the batch's rows firstRow … firstRow + users·maxRows − 1 as they are.
        int64_t firstRow = -1;
    };
    int64_t users = 0, rows = 0;
    Tensor userOfRow, rowCount;
    std::vector<Bucket> buckets;  // by increasing maxRows
    /// Σ over the buckets of users · maxRows: the rows of the padded layout.
    int64_t paddedRows() const;
    /// x of shape (B, s1, s2, …) → (bucket.users, maxRows·s1, s2, …): each of the bucket's users'
    /// rows one after the other, zero-padded (a 1-D x gives (bucket.users, maxRows)). No copy
    /// when the layout is the rows as they are (rows ordered by user, equal counts).
    Tensor grouped(const Tensor& x, const Bucket& bucket) const;
    /// x of shape (B, C, s…) → (maxRows, bucket.users·C, s…): the rank-j rows of the bucket's
    /// users side by side along the channels, so user u is channel group u and its rows the batch.
    Tensor groupedByRank(const Tensor& x, const Bucket& bucket) const;
    /// x of shape (B, k) → (users, k): Σ_{b∈u} x_b.
    Tensor sumByUser(const Tensor& x) const;
    /// One call of `perBucket` per bucket, each giving (bucket.users, …), assembled into (users, …).
    Tensor collect(const std::function<Tensor(const Bucket&)>& perBucket) const;
};

/// How a layer computes its users' squared gradient norms ‖Σ_{b∈u} ∇ℓ_b‖².
enum class UserNormRoute {
    Gram,         // Gram trick per user on each bucket's padded layout: Σ users·(maxRows·T)² pairs
    Materialise,  // the per-user sums Σ_{b∈u} ∇ℓ_b (users × P numbers), then their norms
};

/// The route a layer takes: for T positions per row (1 without a sequence dimension) and a
/// cost of `pairCost` flops per pair of positions (d_in + d_out for a Linear layer), the Gram
/// route costs Σ over buckets of users·(maxRows·T)²·pairCost flops, materialising costs
/// `materialiseCost`; Auto takes the cheaper, Ghost the Gram route, Materialise and
/// MaterialiseGrouped materialise.
UserNormRoute chooseUserNormRoute(NormStrategy strategy, const UserRows& users, int64_t positions, double pairCost,
                                  double materialiseCost);

class Layer {
public:
    virtual ~Layer() = default;
    /// `tape` is null outside DP steps; trainable, unfrozen layers record into it otherwise.
    virtual Tensor forward(const Tensor& x, Tape* tape) = 0;
    /// Pointers to this layer's (and its children's) parameters, in a fixed order.
    virtual std::vector<Tensor*> parameters() { return {}; }
    /// Freezes (requires_grad off, no tape records) or unfreezes everything inside.
    virtual void setFrozen(bool frozen) { (void)frozen; }
    /// Direct sub-layers of a container (empty for a leaf).
    virtual std::vector<Layer*> children() { return {}; }
    virtual std::string name() const = 0;
};

using LayerPtr = std::shared_ptr<Layer>;

/// A layer with parameters: knows how to turn (input, d loss/d output) into per-example
/// gradient norms and into an example-weighted gradient sum.
class TrainableLayer : public Layer {
public:
    std::vector<Tensor*> parameters() override = 0;
    void setFrozen(bool frozen) override;
    bool frozen() const { return frozen_; }
    void setNormStrategy(NormStrategy s) { strategy_ = s; }

    /// Squared norm of each example's gradient of this layer's parameters, shape (B).
    virtual Tensor perExampleSquaredNorms(Capture& capture, const Tensor& gradOutput) = 0;
    /// Σ_b weights_b ∇θ ℓ_b for each parameter, in parameters() order.
    virtual std::vector<Tensor> weightedGradients(Capture& capture, const Tensor& gradOutput,
                                                  const Tensor& weights) = 0;
    /// Each example's own gradient of each parameter, in parameters() order, shape (B, P_i):
    /// what the default perUserSquaredNorms sums within users before taking norms (a user's
    /// gradient is the mean of its examples' gradients, whose norm is not a function of theirs).
    virtual std::vector<Tensor> perExampleGradients(Capture& capture, const Tensor& gradOutput) = 0;
    /// Squared norm of each user's summed gradient ‖Σ_{b∈u} ∇θ ℓ_b‖² over this layer's
    /// parameters, shape (users). A layer that materialises the per-user sums leaves them in
    /// capture.perUserGrads (one (users, P_i) tensor per parameter); otherwise user-level clipping
    /// forms its clipped sum by weightedGradients with per-row weights. This default sums the
    /// per-example gradients within users (for layers whose per-example gradients are small).
    virtual Tensor perUserSquaredNorms(Capture& capture, const Tensor& gradOutput, const UserRows& users);

protected:
    /// Adds a capture when recording; returns the output unchanged.
    Tensor record(Tape* tape, const Tensor& input, const Tensor& output);
    bool frozen_ = false;
    NormStrategy strategy_ = NormStrategy::Auto;
};

/// Options every layer constructor takes: dtype and device of its parameters, and the
/// generator for their initialisation (PyTorch's defaults, see each layer).
struct InitOptions {
    at::TensorOptions tensor = at::TensorOptions().dtype(at::kFloat);
    at::Generator* generator = nullptr;
};

/// y = x Wᵀ + b on (B, in) or (B, T, in). Init: W, b ~ U(±1/√in) (PyTorch's default).
class Linear : public TrainableLayer {
public:
    Linear(int64_t in, int64_t out, const InitOptions& init, bool bias = true);
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    Tensor perExampleSquaredNorms(Capture& capture, const Tensor& gradOutput) override;
    std::vector<Tensor> weightedGradients(Capture& capture, const Tensor& gradOutput, const Tensor& weights) override;
    std::vector<Tensor> perExampleGradients(Capture& capture, const Tensor& gradOutput) override;
    Tensor perUserSquaredNorms(Capture& capture, const Tensor& gradOutput, const UserRows& users) override;
    std::string name() const override { return "Linear"; }
    Tensor weight, bias;
};

/// 2-D convolution (square kernel, groups 1, dilation 1). Init: U(±1/√(in·k²)).
class Conv2d : public TrainableLayer {
public:
    Conv2d(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding, const InitOptions& init,
           bool bias = true);
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    Tensor perExampleSquaredNorms(Capture& capture, const Tensor& gradOutput) override;
    std::vector<Tensor> weightedGradients(Capture& capture, const Tensor& gradOutput, const Tensor& weights) override;
    std::vector<Tensor> perExampleGradients(Capture& capture, const Tensor& gradOutput) override;
    Tensor perUserSquaredNorms(Capture& capture, const Tensor& gradOutput, const UserRows& users) override;
    std::string name() const override { return "Conv2d"; }
    /// Unfolded input patches, (B, L, C_in·k²), columns in the weight's (C_in, k, k) order.
    Tensor patches(const Tensor& x) const;
    /// Each example's weight gradient, (B, C_out, C_in·k²), by the cheapest route that applies.
    Tensor perExampleWeightGradients(const Capture& capture, const Tensor& gradOutput) const;
    /// Each example's weight gradient (B, C_out·C_in·k²) and, with a bias, bias gradient
    /// (B, C_out) from the few-channel kernel (conv_example_kernel.h); empty where it does not
    /// apply (stride ≠ 1, many input channels, not float32 on the CPU, other kernel sizes).
    std::vector<Tensor> kernelExampleGradients(const Capture& capture, const Tensor& gradOutput) const;
    /// Each user's summed weight gradient Σ_{b∈u} ∇W_b, (users, C_out·C_in·k²), by the same two
    /// routes with the users' rows grouped.
    Tensor perUserWeightGradients(const Capture& capture, const Tensor& gradOutput, const UserRows& users) const;
    Tensor weight, bias;
    int64_t kernel, stride, padding;
};

/// GroupNorm over (B, C, *) with a per-channel affine map. Init: γ = 1, β = 0.
/// Used instead of BatchNorm in every model: BatchNorm mixes examples within a batch, so
/// one example's gradient would depend on the others and per-example clipping would not
/// bound its influence.
class GroupNorm : public TrainableLayer {
public:
    GroupNorm(int64_t groups, int64_t channels, const InitOptions& init, double eps = 1e-5);
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    Tensor perExampleSquaredNorms(Capture& capture, const Tensor& gradOutput) override;
    std::vector<Tensor> weightedGradients(Capture& capture, const Tensor& gradOutput, const Tensor& weights) override;
    std::vector<Tensor> perExampleGradients(Capture& capture, const Tensor& gradOutput) override;
    std::string name() const override { return "GroupNorm"; }
    Tensor weight, bias;
    int64_t groups;
    double eps;
};

/// Lookup table on integer indices (B) or (B, T). Init: N(0, 1) (PyTorch's default).
class Embedding : public TrainableLayer {
public:
    Embedding(int64_t count, int64_t dim, const InitOptions& init);
    Tensor forward(const Tensor& indices, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    Tensor perExampleSquaredNorms(Capture& capture, const Tensor& gradOutput) override;
    std::vector<Tensor> weightedGradients(Capture& capture, const Tensor& gradOutput, const Tensor& weights) override;
    std::vector<Tensor> perExampleGradients(Capture& capture, const Tensor& gradOutput) override;
    Tensor perUserSquaredNorms(Capture& capture, const Tensor& gradOutput, const UserRows& users) override;
    std::string name() const override { return "Embedding"; }
    Tensor weight;
};

class ReLU : public Layer {
public:
    Tensor forward(const Tensor& x, Tape*) override;
    std::string name() const override { return "ReLU"; }
};

class MaxPool2d : public Layer {
public:
    explicit MaxPool2d(int64_t kernel) : kernel_(kernel) {}
    Tensor forward(const Tensor& x, Tape*) override;
    std::string name() const override { return "MaxPool2d"; }

private:
    int64_t kernel_;
};

/// Non-overlapping average pooling (kernel = stride), as PSG's ConvNet pools.
class AvgPool2d : public Layer {
public:
    explicit AvgPool2d(int64_t kernel) : kernel_(kernel) {}
    Tensor forward(const Tensor& x, Tape*) override;
    std::string name() const override { return "AvgPool2d"; }

private:
    int64_t kernel_;
};

/// (B, C, H, W) → (B, C): mean over the spatial positions.
class GlobalAvgPool : public Layer {
public:
    Tensor forward(const Tensor& x, Tape*) override;
    std::string name() const override { return "GlobalAvgPool"; }
};

/// (B, ...) → (B, rest).
class Flatten : public Layer {
public:
    Tensor forward(const Tensor& x, Tape*) override;
    std::string name() const override { return "Flatten"; }
};

/// Layers applied in order.
class Sequential : public Layer {
public:
    Sequential() = default;
    explicit Sequential(std::vector<LayerPtr> layers) : layers_(std::move(layers)) {}
    void add(LayerPtr layer) { layers_.push_back(std::move(layer)); }
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    void setFrozen(bool frozen) override;
    std::vector<Layer*> children() override;
    std::string name() const override { return "Sequential"; }
    const std::vector<LayerPtr>& layers() const { return layers_; }

private:
    std::vector<LayerPtr> layers_;
};

/// ReLU(main(x) + shortcut(x)); an empty shortcut is the identity (ResNet basic block).
class Residual : public Layer {
public:
    Residual(std::shared_ptr<Sequential> main, std::shared_ptr<Sequential> shortcut)
        : main_(std::move(main)), shortcut_(std::move(shortcut)) {}
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    void setFrozen(bool frozen) override;
    std::vector<Layer*> children() override;
    std::string name() const override { return "Residual"; }

private:
    std::shared_ptr<Sequential> main_, shortcut_;
};

}  // namespace dpmix::train::detail
