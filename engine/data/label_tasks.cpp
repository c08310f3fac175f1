#include "engine/data/label_tasks.h"

#include "engine/core/joined_list.h"
#include "engine/data/loader_options.h"

#include <algorithm>
#include <set>

namespace dpmix::data {

Result<std::vector<LabelTask>> parseLabelTasks(const std::string& text) {
    std::vector<LabelTask> tasks;
    std::set<std::string> names;
    for (const std::string& item : splitList(text, ';')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            return Error{"label task '" + item + "' is not valid, expected name=classA|classB"};
        LabelTask task{trim(item.substr(0, eq)), splitList(item.substr(eq + 1), '|')};
        if (task.name.empty()) return Error{"label task '" + item + "' has an empty name, expected name=classA|classB"};
        if (task.classes.empty())
            return Error{"label task '" + task.name + "' lists no classes, expected name=classA|classB"};
        if (!names.insert(task.name).second) return Error{"label task '" + task.name + "' is defined twice"};
        tasks.push_back(std::move(task));
    }
    if (tasks.empty()) return Error{"no label tasks in '" + text + "', expected name=classA|classB;..."};
    return tasks;
}

Result<LabelMatrix> oneHotTargets(const std::vector<int>& classIds, const std::vector<std::string>& classNames) {
    const std::size_t k = classNames.size();
    LabelMatrix m{classNames, std::vector<float>(classIds.size() * k, 0.0f)};
    for (std::size_t i = 0; i < classIds.size(); ++i) {
        if (classIds[i] < 0 || static_cast<std::size_t>(classIds[i]) >= k)
            return Error{"example " + std::to_string(i) + " has class " + std::to_string(classIds[i]) +
                         ", expected 0.." + std::to_string(int(k) - 1) + " (" + std::to_string(k) + " class names)"};
        m.values[i * k + static_cast<std::size_t>(classIds[i])] = 1.0f;
    }
    return m;
}

namespace {

// Which classes each task holds: member[c * t + j] is 1 when class c belongs to task j.
struct TaskMembership {
    std::vector<std::string> names;
    std::vector<unsigned char> member;
};

Result<TaskMembership> taskMembership(const std::vector<std::string>& classNames, const std::vector<LabelTask>& tasks) {
    const std::size_t k = classNames.size(), t = tasks.size();
    TaskMembership m{{}, std::vector<unsigned char>(k * t, 0)};
    std::set<std::string> seen;
    for (std::size_t j = 0; j < t; ++j) {
        if (!seen.insert(tasks[j].name).second) return Error{"label task '" + tasks[j].name + "' is defined twice"};
        m.names.push_back(tasks[j].name);
        for (const auto& cls : tasks[j].classes) {
            const auto it = std::find(classNames.begin(), classNames.end(), cls);
            if (it == classNames.end()) {
                return Error{"label task '" + tasks[j].name + "': unknown class '" + cls +
                             "' (classes: " + core::joinedList(classNames) + ")"};
            }
            m.member[static_cast<std::size_t>(it - classNames.begin()) * t + j] = 1;
        }
    }
    return m;
}

}  // namespace

Result<LabelMatrix> taskTargets(const std::vector<int>& classIds, const std::vector<std::string>& classNames,
                                const std::vector<LabelTask>& tasks) {
    const std::size_t k = classNames.size(), t = tasks.size();
    auto membership = taskMembership(classNames, tasks);
    if (!membership) return membership.error();
    LabelMatrix m{membership->names, std::vector<float>(classIds.size() * t, 0.0f)};
    for (std::size_t i = 0; i < classIds.size(); ++i) {
        if (classIds[i] < 0 || static_cast<std::size_t>(classIds[i]) >= k)
            return Error{"example " + std::to_string(i) + " has class " + std::to_string(classIds[i]) +
                         ", expected 0.." + std::to_string(int(k) - 1)};
        const std::size_t c = static_cast<std::size_t>(classIds[i]);
        for (std::size_t j = 0; j < t; ++j) m.values[i * t + j] = membership->member[c * t + j];
    }
    return m;
}

Result<LabelMatrix> labelTaskTargets(const ImageDataset& labelled, const std::vector<LabelTask>& tasks) {
    const std::size_t n = labelled.size(), k = labelled.numLabels(), t = tasks.size();
    auto membership = taskMembership(labelled.labelNames, tasks);
    if (!membership) return membership.error();
    LabelMatrix m{membership->names, std::vector<float>(n * t, 0.0f)};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c)
            for (std::size_t j = 0; j < t; ++j) {
                if (!membership->member[c * t + j]) continue;
                // A task's target is only known when every one of its classes is.
                if (!labelled.labelMask.empty() && !labelled.labelMask[i * k + c])
                    return Error{"example " + std::to_string(i) + " has a missing label '" + labelled.labelNames[c] +
                                 "', which task '" + tasks[j].name + "' needs; label tasks need those labels known"};
                if (labelled.labels[i * k + c] > 0.5f) m.values[i * t + j] = 1.0f;
            }
    return m;
}

Result<ImageDataset> applyLabelTasks(const ImageDataset& labelled, const std::vector<LabelTask>& tasks) {
    auto targets = labelTaskTargets(labelled, tasks);
    if (!targets) return targets.error();
    ImageDataset out = labelled;
    out.labelNames = targets->names;
    out.labels = std::move(targets).value().values;
    out.labelMask.clear();
    return out;
}

Result<ImageDataset> selectLabelColumns(const ImageDataset& dataset, const std::vector<std::size_t>& columns) {
    const std::size_t n = dataset.size(), l = dataset.numLabels(), m = columns.size();
    if (columns.empty()) return Error{"no label columns selected, expected at least one"};
    for (std::size_t c : columns)
        if (c >= l)
            return Error{"label column " + std::to_string(c) + " does not exist (the data set has " +
                         std::to_string(l) + " labels)"};
    ImageDataset out;
    out.channels = dataset.channels;
    out.height = dataset.height;
    out.width = dataset.width;
    out.pixels = dataset.pixels;
    out.users = dataset.users;
    for (std::size_t c : columns) out.labelNames.push_back(dataset.labelNames[c]);
    out.labels.resize(n * m);
    if (!dataset.labelMask.empty()) out.labelMask.resize(n * m);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < m; ++j) {
            out.labels[i * m + j] = dataset.labels[i * l + columns[j]];
            if (!dataset.labelMask.empty()) out.labelMask[i * m + j] = dataset.labelMask[i * l + columns[j]];
        }
    }
    return out;
}

const std::vector<std::string>& fashionMnistClassNames() {
    static const std::vector<std::string> names = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                   "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
    return names;
}

}  // namespace dpmix::data
