#pragma once
// Which network to build. Plain C++ (no torch): the pipeline and GUI describe models with it.
//
// Every model normalises with GroupNorm, never BatchNorm: BatchNorm couples the examples of a
// batch, so per-example clipping in DP-SGD would no longer bound one example's influence.
#include "engine/core/builder_setter.h"
#include "engine/core/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::train {

enum class ModelKind {
    SmallCnn,  // Conv(C→c1,3×3)-GN-ReLU-MaxPool2 → Conv(c1→c2,3×3)-GN-ReLU-MaxPool2 → Linear-ReLU → Linear
    ResNet18,  // basic-block ResNet-18 with GroupNorm, configurable width and input size
    Mlp,       // Flatten → [Linear-ReLU]* → Linear
    ConvNet,   // [Conv(3×3)-InstanceNorm-ReLU-AvgPool2]×depth → Linear (PSG's network, docs/PSG.md)
};

std::string toString(ModelKind kind);
bool parseModelKind(const std::string& text, ModelKind& out);  // "small-cnn", "resnet18", "mlp", "convnet"

struct ModelSpec {
    ModelKind kind = ModelKind::SmallCnn;
    int channels = 1, height = 28, width = 28;  // input images C×H×W
    int outputs = 1;                            // logits
    // SmallCnn
    int convWidth1 = 32, convWidth2 = 64, hidden = 128;
    bool groupNorm = true;  // SmallCnn only: false gives the benchmark's reference CNN
    // ResNet18: stage widths w, 2w, 4w, 8w. Inputs below 64 px use a 3×3 stride-1 stem
    // without max-pool (CIFAR style), larger inputs the 7×7 stride-2 stem with max-pool.
    int resnetWidth = 64;
    int normGroups = 8;  // GroupNorm groups; must divide every normalised width
    // Mlp
    std::vector<int> mlpHidden = {512, 512};
    // ConvNet: channels per block and number of blocks (each halves the resolution)
    int convNetWidth = 128, convNetDepth = 3;

    /// Trainable blocks from input to output; the last one is the head. SmallCnn: 4
    /// (conv, conv, hidden, head); ResNet18: 10 (stem, 8 basic blocks, head); Mlp: hidden + 1;
    /// ConvNet: depth + 1.
    int blockCount() const;
};

/// Validating builder: sizes ≥ 1, GroupNorm groups dividing each width, input large enough.
class ModelSpecBuilder {
public:
    ModelSpecBuilder& kind(ModelKind v) { return core::setField(*this, spec_.kind, v); }
    ModelSpecBuilder& input(int channels, int height, int width) {
        spec_.channels = channels;
        spec_.height = height;
        spec_.width = width;
        return *this;
    }
    ModelSpecBuilder& outputs(int v) { return core::setField(*this, spec_.outputs, v); }
    ModelSpecBuilder& convWidths(int c1, int c2) {
        spec_.convWidth1 = c1;
        spec_.convWidth2 = c2;
        return *this;
    }
    ModelSpecBuilder& hidden(int v) { return core::setField(*this, spec_.hidden, v); }
    ModelSpecBuilder& groupNorm(bool v) { return core::setField(*this, spec_.groupNorm, v); }
    ModelSpecBuilder& resnetWidth(int v) { return core::setField(*this, spec_.resnetWidth, v); }
    ModelSpecBuilder& normGroups(int v) { return core::setField(*this, spec_.normGroups, v); }
    ModelSpecBuilder& mlpHidden(std::vector<int> v) { return core::setField(*this, spec_.mlpHidden, std::move(v)); }
    ModelSpecBuilder& convNet(int width, int depth) {
        spec_.convNetWidth = width;
        spec_.convNetDepth = depth;
        return *this;
    }
    Result<ModelSpec> build() const;

private:
    ModelSpec spec_;
};

}  // namespace dpmix::train
