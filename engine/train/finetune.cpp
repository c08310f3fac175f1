#include "engine/train/finetune.h"

#include <string>

namespace dpmix::train {

std::optional<Error> checkFinetuneLabels(std::span<const int> labels, std::int64_t examples, int outputs) {
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

}  // namespace dpmix::train
