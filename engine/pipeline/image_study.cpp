#include "engine/pipeline/image_study.h"

#include "engine/data/label_tasks.h"
#include "engine/pipeline/run_storage.h"

#include <algorithm>

namespace dpmix::pipeline {
namespace {

data::SourceSpec toSourceSpec(const project::SourceRecord& record, const std::map<std::string, std::string>& options) {
    return data::SourceSpec{record.name, record.loader, record.path, options};
}

std::vector<data::LabelTask> toDataTasks(const std::vector<project::LabelTask>& tasks) {
    std::vector<data::LabelTask> out;
    for (const auto& t : tasks) out.push_back({t.name, t.classes});
    return out;
}

// Loads an image source and turns its single-label classes into the given tasks.
Result<data::ImageDataset> loadWithTasks(const project::SourceRecord& record,
                                         const std::map<std::string, std::string>& options,
                                         const std::vector<project::LabelTask>& tasks, const std::string& role) {
    if (record.facts.kind != "images")
        return Error{role + " source '" + record.name + "' is " + record.facts.kind + " data: this study needs images"};
    auto loaded = data::loadImageSource(toSourceSpec(record, options));
    if (!loaded) return Error{role + " source '" + record.name + "': " + loaded.error().message};
    if (tasks.empty()) return std::move(loaded).value();
    auto derived = data::applyLabelTasks(*loaded, toDataTasks(tasks));
    if (!derived) return Error{role + " tasks on '" + record.name + "': " + derived.error().message};
    return std::move(derived).value();
}

}  // namespace

Result<ImageStudy> loadImageStudy(const std::vector<project::SourceRecord>& sources, const project::ProjectSpec& spec,
                                  std::uint64_t studySeed) {
    const project::SourceRecord* publicSource = nullptr;
    const project::SourceRecord* sensitiveSource = nullptr;
    std::size_t publicCount = 0;
    for (const auto& s : sources) {
        if (s.role == "public") { publicSource = publicSource ? publicSource : &s; ++publicCount; }
        if (s.role == "sensitive") sensitiveSource = &s;
    }
    if (!sensitiveSource) return Error{"the project needs one public and one sensitive image source"};
    if (!publicSource)
        return Error{"this study registers no public source: DP-MixMin and its baselines pretrain on public data; "
                     "a study without public data can run Private Set Generation (dpmix psg)"};
    if (publicCount != 1)
        return Error{"an image study takes its k components as label tasks of ONE public image source; this project "
                     "registers " + std::to_string(publicCount) + " public sources"};

    ImageStudy study;
    auto pub = loadWithTasks(*publicSource, sourceOptions(spec, publicSource->name), spec.publicTasks, "public");
    if (!pub) return pub.error();
    auto sens = loadWithTasks(*sensitiveSource, sourceOptions(spec, sensitiveSource->name), spec.sensitiveTasks, "sensitive");
    if (!sens) return sens.error();
    study.publicImages = std::move(pub).value();
    study.sensitiveImages = std::move(sens).value();
    study.componentNames = study.publicImages.labelNames;
    study.taskNames = study.sensitiveImages.labelNames;
    if (study.components() < 2) return Error{"the public source gives " + std::to_string(study.components()) +
                                             " label task(s): mixing needs at least 2 components"};
    if (study.tasks() < 1) return Error{"the sensitive source has no task to learn"};
    if (study.publicImages.imageSize() != study.sensitiveImages.imageSize() ||
        study.publicImages.channels != study.sensitiveImages.channels)
        return Error{"public and sensitive images differ in shape (" + std::to_string(study.publicImages.channels) + "x" +
                     std::to_string(study.publicImages.height) + "x" + std::to_string(study.publicImages.width) + " vs " +
                     std::to_string(study.sensitiveImages.channels) + "x" + std::to_string(study.sensitiveImages.height) +
                     "x" + std::to_string(study.sensitiveImages.width) + "): one model must read both"};
    // The unit of each split: the user, or the example by its content, so that a unit's side
    // never depends on the other units (docs/PRIVACY.md, "Stable splits").
    if (spec.sensitive.userLevel) {
        // Every image needs its user: an image without one would be a unit of its own, and a
        // patient's other images would not be protected together with it.
        const auto& users = study.sensitiveImages.users;
        if (users.size() != study.sensitiveImages.size())
            return Error{"sensitive.user_level = true, but sensitive source '" + sensitiveSource->name +
                         "' gives no user per image: set its user column (option user_column)"};
        for (std::size_t i = 0; i < users.size(); ++i)
            if (users[i].empty())
                return Error{"sensitive.user_level = true, but image " + std::to_string(i) + " of '" +
                             sensitiveSource->name + "' has an empty user: every image needs its user"};
        study.grouping.users = users;
    }
    else study.grouping.keys = data::contentKeys(study.sensitiveImages);
    auto split = data::trainValidationTestSplit(study.sensitiveImages.size(), studySeed, study.grouping);
    if (!split) return Error{"splitting the sensitive data: " + split.error().message};
    study.sensitiveSplit = std::move(split).value();
    return study;
}

Result<RhoSplit> splitForRun(const ImageStudy& study, double rho, std::uint64_t runSeed) {
    const auto& train = study.sensitiveSplit.train;
    const data::SplitGrouping grouping = data::subsetGrouping(study.grouping, train);
    auto split = data::rhoSplit(train.size(), rho, runSeed, grouping);
    if (!split) return Error{"the rho split: " + split.error().message};
    RhoSplit out;
    for (auto i : split->first) out.a.push_back(train[i]);
    for (auto i : split->second) out.b.push_back(train[i]);
    return out;
}

}  // namespace dpmix::pipeline
