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

#include <memory>
#include <string>
#include <vector>

namespace dpmix::train::detail {

using at::Tensor;

class TrainableLayer;

/// One application of a trainable layer in a forward pass.
struct Capture {
    TrainableLayer* layer = nullptr;
    Tensor input;    // what the parameters multiply (GroupNorm: the normalised input)
    Tensor output;   // the layer's output; autograd is asked for d loss / d output
    std::vector<Tensor> perExampleGrads;  // filled when a layer materialises them
};

/// Records trainable-layer applications during a DP forward pass.
struct Tape {
    std::vector<Capture> captures;
    void clear() { captures.clear(); }
};

/// How a layer computes per-example gradient norms.
enum class NormStrategy {
    Auto,         // the cheaper of the two by a flop count
    Ghost,        // never materialise per-example gradients (Gram-matrix trick)
    Materialise,  // build per-example gradients, then take their norms
    MaterialiseGrouped,  // as Materialise, convolutions always by the grouped-convolution route (tests)
};

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
    /// what user-level clipping sums within users before taking norms (a user's gradient is the
    /// mean of its examples' gradients, whose norm is not a function of their norms).
    virtual std::vector<Tensor> perExampleGradients(Capture& capture, const Tensor& gradOutput) = 0;

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
    std::string name() const override { return "Conv2d"; }
    /// Unfolded input patches, (B, L, C_in·k²), columns in the weight's (C_in, k, k) order.
    Tensor patches(const Tensor& x) const;
    /// Each example's weight gradient, (B, C_out, C_in·k²), by the cheaper of two routes.
    Tensor perExampleWeightGradients(const Capture& capture, const Tensor& gradOutput) const;
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
