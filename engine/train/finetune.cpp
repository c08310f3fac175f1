#include "engine/train/finetune.h"

#include <string>

namespace dpmix::train {

Status checkFinetuneLabels(std::span<const int> labels, std::int64_t examples, int outputs) {
    if (static_cast<std::int64_t>(labels.size()) != examples)
        return Error{"fine-tuning labels: got " + std::to_string(labels.size()) + " labels for " +
                     std::to_string(examples) + " images; expected one label per image"};
    const int classes = outputs == 1 ? 2 : outputs;
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] < 0 || labels[i] >= classes)
            return Error{"fine-tuning labels: label " + std::to_string(labels[i]) + " at index " + std::to_string(i) +
                         " is out of range: expected " +
                         (outputs == 1 ? std::string("0 or 1 for a single-logit (binary) model")
                                       : "a class in 0.." + std::to_string(classes - 1))};
    return std::nullopt;
}

Status checkFinetuneInputs(const ModelSpec& spec, const ImageView& images, std::span<const int> labels,
                           int expectedBatchSize, int trainLastBlocks) {
    if (auto e = checkImages("fine-tuning images", images)) return e;
    if (auto e = checkImageShape("fine-tuning images", images, spec.channels, spec.height, spec.width)) return e;
    if (auto e = checkFinetuneLabels(labels, images.count, spec.outputs)) return e;
    if (expectedBatchSize > images.count)
        return Error{"expectedBatchSize = " + std::to_string(expectedBatchSize) + " exceeds the " +
                     std::to_string(images.count) + " fine-tuning examples: the sampling rate q = B/N must be <= 1"};
    if (trainLastBlocks > spec.blockCount())
        return Error{"trainLastBlocks = " + std::to_string(trainLastBlocks) + " exceeds the " +
                     std::to_string(spec.blockCount()) + " blocks of the " + toString(spec.kind) + " model"};
    return std::nullopt;
}

}  // namespace dpmix::train
