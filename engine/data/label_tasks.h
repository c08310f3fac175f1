#pragma once
// Label tasks: turning labelled data into binary task targets.
// A public image set with L labels gives k = L sources (one per column); a derived binary task is
// the union of base classes, e.g. Fashion-MNIST "footwear" = Sandal ∪ Sneaker ∪ Ankle boot: an
// example is positive for a task when any of the task's classes is positive. On single-label data
// (one class per example) that is "its class is one of them"; on multi-label data, such as a
// clinic's findings (none, one or several per image), "it has one of them" (docs/DATA.md,
// "Label tasks").
#include "engine/core/result.h"
#include "engine/data/source_loader.h"

#include <cstddef>
#include <string>
#include <vector>

namespace dpmix::data {

struct LabelTask {
    std::string name;                  // the target's name, e.g. "footwear"
    std::vector<std::string> classes;  // base class names whose union is the positive class
};

/// Multi-label targets: names.size() = L, values.size() = N*L (0/1, row-major).
struct LabelMatrix {
    std::vector<std::string> names;
    std::vector<float> values;
};

/// Parses "footwear=Sandal|Sneaker|Ankle boot;tops=T-shirt/top|Shirt". Errors name the item.
Result<std::vector<LabelTask>> parseLabelTasks(const std::string& text);

/// One-hot targets for class ids in [0, classNames.size()).
Result<LabelMatrix> oneHotTargets(const std::vector<int>& classIds, const std::vector<std::string>& classNames);

/// Targets for derived tasks: column t is 1 where the example's class is one of tasks[t].classes.
/// Every class named by a task must be in classNames; task names must be unique.
Result<LabelMatrix> taskTargets(const std::vector<int>& classIds, const std::vector<std::string>& classNames,
                                const std::vector<LabelTask>& tasks);

/// The task targets of a loaded data set (any number of 1s per row of `labels`): column t is 1
/// where any class of tasks[t] is 1. Every class a task names must be known for every example
/// (labelMask); the error names the example, the label and the task. Without copying the pixels.
Result<LabelMatrix> labelTaskTargets(const ImageDataset& labelled, const std::vector<LabelTask>& tasks);

/// The same, returning a copy whose labels are the task targets.
Result<ImageDataset> applyLabelTasks(const ImageDataset& labelled, const std::vector<LabelTask>& tasks);

/// Keeps only the given label columns (e.g. one column per public source, k = L sources).
Result<ImageDataset> selectLabelColumns(const ImageDataset& dataset, const std::vector<std::size_t>& columns);

/// The ten Fashion-MNIST class names in label order (Zalando's README), used by classes=fashion-mnist.
const std::vector<std::string>& fashionMnistClassNames();

}  // namespace dpmix::data
