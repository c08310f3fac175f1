#include "engine/train/model_spec.h"

namespace dpmix::train {

std::string toString(ModelKind kind) {
    switch (kind) {
        case ModelKind::SmallCnn: return "small-cnn";
        case ModelKind::ResNet18: return "resnet18";
        case ModelKind::Mlp: return "mlp";
        case ModelKind::ConvNet: return "convnet";
    }
    return "unknown";
}

bool parseModelKind(const std::string& text, ModelKind& out) {
    for (ModelKind k : {ModelKind::SmallCnn, ModelKind::ResNet18, ModelKind::Mlp, ModelKind::ConvNet})
        if (text == toString(k)) {
            out = k;
            return true;
        }
    return false;
}

int ModelSpec::blockCount() const {
    switch (kind) {
        case ModelKind::SmallCnn: return 4;
        case ModelKind::ResNet18: return 10;
        case ModelKind::Mlp: return static_cast<int>(mlpHidden.size()) + 1;
        case ModelKind::ConvNet: return convNetDepth + 1;
    }
    return 0;
}

namespace {

Status atLeast(const std::string& field, int value, int minimum) {
    if (value >= minimum) return std::nullopt;
    return Error{"model: " + field + " = " + std::to_string(value) + " is out of range: expected at least " +
                 std::to_string(minimum)};
}

Status groupsDivide(int groups, int width, const std::string& widthField) {
    if (width % groups == 0) return std::nullopt;
    return Error{"model: normGroups = " + std::to_string(groups) + " does not divide " + widthField + " = " +
                 std::to_string(width) + ": GroupNorm needs the channel count to be a multiple of the groups"};
}

}  // namespace

Result<ModelSpec> ModelSpecBuilder::build() const {
    const ModelSpec& s = spec_;
    for (auto check : {atLeast("channels", s.channels, 1), atLeast("height", s.height, 1), atLeast("width", s.width, 1),
                       atLeast("outputs", s.outputs, 1)})
        if (check) return *check;
    switch (s.kind) {
        case ModelKind::SmallCnn:
            for (auto check :
                 {atLeast("height", s.height, 4), atLeast("width", s.width, 4), atLeast("convWidth1", s.convWidth1, 1),
                  atLeast("convWidth2", s.convWidth2, 1), atLeast("hidden", s.hidden, 1)})
                if (check) return *check;
            if (s.groupNorm) {
                if (auto e = atLeast("normGroups", s.normGroups, 1)) return *e;
                if (auto e = groupsDivide(s.normGroups, s.convWidth1, "convWidth1")) return *e;
                if (auto e = groupsDivide(s.normGroups, s.convWidth2, "convWidth2")) return *e;
            }
            break;
        case ModelKind::ResNet18:
            for (auto check : {atLeast("height", s.height, 8), atLeast("width", s.width, 8),
                               atLeast("resnetWidth", s.resnetWidth, 1), atLeast("normGroups", s.normGroups, 1)})
                if (check) return *check;
            if (auto e = groupsDivide(s.normGroups, s.resnetWidth, "resnetWidth")) return *e;
            break;
        case ModelKind::ConvNet: {
            if (auto e = atLeast("convNetWidth", s.convNetWidth, 1)) return *e;
            if (auto e = atLeast("convNetDepth", s.convNetDepth, 1)) return *e;
            const int side = 1 << s.convNetDepth;
            if (s.height < side || s.width < side)
                return Error{"model: a ConvNet of depth " + std::to_string(s.convNetDepth) + " halves the image " +
                             std::to_string(s.convNetDepth) + " times: expected images of at least " +
                             std::to_string(side) + "x" + std::to_string(side) + " pixels, got " +
                             std::to_string(s.height) + "x" + std::to_string(s.width)};
            break;
        }
        case ModelKind::Mlp:
            for (std::size_t i = 0; i < s.mlpHidden.size(); ++i)
                if (auto e = atLeast("mlpHidden[" + std::to_string(i) + "]", s.mlpHidden[i], 1)) return *e;
            break;
    }
    return s;
}

}  // namespace dpmix::train
