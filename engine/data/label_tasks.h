#pragma once
// Label tasks: turning single-label class data into multi-label targets.
// A public image set with L labels gives k = L sources (one per column); a derived binary task is
// the union of base classes, e.g. Fashion-MNIST "footwear" = Sandal ∪ Sneaker ∪ Ankle boot.
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

/// The task targets of a loaded single-label data set (each row of `labels` has exactly one 1),
/// without copying its pixels.
Result<LabelMatrix> labelTaskTargets(const ImageDataset& singleLabel, const std::vector<LabelTask>& tasks);

/// The same for a loaded single-label data set (each row of `labels` has exactly one 1):
/// returns a copy whose labels are the task targets.
Result<ImageDataset> applyLabelTasks(const ImageDataset& singleLabel, const std::vector<LabelTask>& tasks);

/// Keeps only the given label columns (e.g. one column per public source, k = L sources).
Result<ImageDataset> selectLabelColumns(const ImageDataset& dataset, const std::vector<std::size_t>& columns);

/// The ten Fashion-MNIST class names in label order (Zalando's README), used by classes=fashion-mnist.
const std::vector<std::string>& fashionMnistClassNames();

}  // namespace dpmix::data
