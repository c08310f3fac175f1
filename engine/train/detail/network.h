#pragma once
// Internal (torch) header: a network is a list of blocks (the unit of "fine-tune only the
// last N blocks"), built from a ModelSpec out of the layer wrappers in layers.h.
#include "engine/train/detail/layers.h"
#include "engine/train/images.h"
#include "engine/train/model_spec.h"

#include <cstdint>
#include <vector>

namespace dpmix::train::detail {

class Network {
public:
    Network() = default;
    explicit Network(std::vector<LayerPtr> blocks) : blocks_(std::move(blocks)) {}

    Tensor forward(const Tensor& x, Tape* tape = nullptr);
    std::vector<Tensor*> parameters();
    /// The number of parameter values, and all of them flattened in parameters() order (how
    /// models are stored in a project file).
    std::int64_t parameterCount();
    std::vector<float> flatParameters();
    /// Restores flatParameters(); the caller checks values.size() == parameterCount().
    void loadFlatParameters(const std::vector<float>& values);
    /// Parameters that currently require a gradient (the unfrozen blocks).
    std::vector<Tensor*> trainableParameters();
    /// Freeze all blocks except the last `count` (count ≤ 0 or ≥ block count: train all).
    void trainOnlyLastBlocks(int count);
    int blockCount() const { return static_cast<int>(blocks_.size()); }
    const std::vector<LayerPtr>& blocks() const { return blocks_; }
    void setNormStrategy(NormStrategy strategy);

private:
    std::vector<LayerPtr> blocks_;
};

/// Builds the network a spec describes, with parameters initialised from `generator`.
Network buildNetwork(const ModelSpec& spec, at::Generator& generator,
                     at::TensorOptions options = at::TensorOptions().dtype(at::kFloat));

/// buildNetwork with a CPU generator (seeded initialisation is the same on every device), then
/// the parameters moved to `device` (leaves that require a gradient).
Network buildNetworkOn(const ModelSpec& spec, at::Generator& generator, at::Device device,
                       at::ScalarType dtype = at::kFloat);

/// The device LibTorch calls `name` ("cpu", "cuda", "cuda:1"); std::invalid_argument when it
/// names none or its backend is not in this LibTorch build.
at::Device deviceNamed(const std::string& name);

/// The rows `indices` of `images` as an (n, C, H, W) float tensor on `device`.
Tensor gatherImages(const ImageView& images, const std::vector<int64_t>& indices, at::Device device);

/// The logits of `images` in evaluation batches of `batchSize` (no autograd), shape (N, outputs).
Tensor predictLogits(Network& net, const ImageView& images, at::Device device, int64_t batchSize = 512);

/// Keeps all but the last `lastBlocks` blocks frozen for a scope (0 = train all) and unfreezes
/// them on every exit path.
struct FrozenBlocks {
    FrozenBlocks(Network& n, int lastBlocks) : net(n) { net.trainOnlyLastBlocks(lastBlocks); }
    ~FrozenBlocks() { net.trainOnlyLastBlocks(0); }
    FrozenBlocks(const FrozenBlocks&) = delete;
    FrozenBlocks& operator=(const FrozenBlocks&) = delete;
    Network& net;
};

}  // namespace dpmix::train::detail
