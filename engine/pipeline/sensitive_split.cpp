#include "engine/pipeline/sensitive_split.h"

#include "engine/data/label_tasks.h"

namespace dpmix::pipeline {
namespace {

std::vector<data::LabelTask> dataTasks(const std::vector<project::LabelTask>& tasks) {
    std::vector<data::LabelTask> out;
    for (const auto& t : tasks) out.push_back({t.name, t.classes});
    return out;
}

Result<data::SplitGrouping> userGrouping(const data::ImageDataset& images, const std::string& sourceName) {
    // Every image needs its user: an image without one would be a unit of its own, and a
    // patient's other images would not be protected together with it.
    const auto& users = images.users;
    if (users.size() != images.size())
        return Error{"sensitive.user_level = true, but sensitive source '" + sourceName +
                     "' gives no user per image: set its user column (option user_column)"};
    for (std::size_t i = 0; i < users.size(); ++i)
        if (users[i].empty())
            return Error{"sensitive.user_level = true, but image " + std::to_string(i) + " of '" + sourceName +
                         "' has an empty user: every image needs its user"};
    data::SplitGrouping g;
    g.users = users;
    return g;
}

}  // namespace

Result<data::SplitGrouping> sensitiveGrouping(const data::ImageDataset& studyImages, const project::ProjectSpec& spec,
                                              const std::string& sourceName) {
    if (spec.sensitive.userLevel) return userGrouping(studyImages, sourceName);
    data::SplitGrouping g;
    g.keys = data::contentKeys(studyImages);
    return g;
}

Result<data::ThreeWaySplit> sensitiveSplitOfSource(const data::ImageDataset& loaded, const project::ProjectSpec& spec,
                                                   const std::string& sourceName, std::uint64_t studySeed) {
    data::SplitGrouping grouping;
    if (spec.sensitive.userLevel) {
        auto users = userGrouping(loaded, sourceName);
        if (!users) return users.error();
        grouping = std::move(users).value();
    } else if (spec.sensitiveTasks.empty()) {
        grouping.keys = data::contentKeys(loaded);
    } else {
        auto targets = data::labelTaskTargets(loaded, dataTasks(spec.sensitiveTasks));
        if (!targets) return Error{"sensitive tasks on '" + sourceName + "': " + targets.error().message};
        grouping.keys = data::contentKeys(loaded, targets->values, targets->names.size());
    }
    return data::trainValidationTestSplit(loaded.size(), studySeed, grouping);
}

}  // namespace dpmix::pipeline
