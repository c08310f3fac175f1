// "classes" / "tasks" options of the class-labelled loaders -> multi-label targets.
#include "engine/data/image_loaders.h"
#include "engine/data/label_tasks.h"
#include "engine/data/loader_options.h"

#include <algorithm>

namespace dpmix::data {

Status attachClassTargets(const SourceSpec& spec, const std::vector<int>& classIds, ImageDataset& dataset,
                          int defaultClassCount) {
    const int maxId = classIds.empty() ? -1 : *std::max_element(classIds.begin(), classIds.end());
    std::vector<std::string> classNames;
    const std::string classes = optionOr(spec, "classes", "");
    if (classes == "fashion-mnist") {
        classNames = fashionMnistClassNames();
    } else if (!classes.empty()) {
        classNames = splitList(classes);
        for (std::size_t i = 0; i < classNames.size(); ++i)
            if (std::find(classNames.begin(), classNames.begin() + static_cast<std::ptrdiff_t>(i), classNames[i]) !=
                classNames.begin() + static_cast<std::ptrdiff_t>(i))
                return Error{sourceContext(spec) + "option 'classes' names '" + classNames[i] +
                             "' twice: expected one distinct name per label value"};
    } else {
        for (int c = 0; c <= std::max(maxId, defaultClassCount - 1); ++c) classNames.push_back(std::to_string(c));
    }
    if (maxId >= static_cast<int>(classNames.size()))
        return Error{sourceContext(spec) + "option 'classes' names " + std::to_string(classNames.size()) +
                     " classes but the labels go up to " + std::to_string(maxId) +
                     ", expected one name per label value"};
    return attachNamedClassTargets(spec, classIds, classNames, dataset);
}

Status attachNamedClassTargets(const SourceSpec& spec, const std::vector<int>& classIds,
                               const std::vector<std::string>& classNames, ImageDataset& dataset) {
    Result<LabelMatrix> targets = LabelMatrix{};
    if (spec.options.count("tasks")) {
        auto tasks = parseLabelTasks(spec.options.at("tasks"));
        if (!tasks) return Error{sourceContext(spec) + "option 'tasks': " + tasks.error().message};
        targets = taskTargets(classIds, classNames, *tasks);
    } else {
        targets = oneHotTargets(classIds, classNames);
    }
    if (!targets) return Error{sourceContext(spec) + targets.error().message};
    dataset.labelNames = targets->names;
    dataset.labels = std::move(targets).value().values;
    return std::nullopt;
}

}  // namespace dpmix::data
