#include "engine/pipeline/image_study.h"

#include "engine/data/image_fit.h"
#include "engine/data/image_union.h"
#include "engine/data/label_tasks.h"
#include "engine/pipeline/adamix_finetune.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/sensitive_split.h"
#include "engine/project/declared_labels.h"

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
    if (record.facts.kind != data::SourceKind::Images)
        return Error{role + " source '" + record.name + "' is " + data::nameOf(record.facts.kind) +
                     " data: this study needs images"};
    auto loaded = data::loadImageSource(toSourceSpec(record, options));
    if (!loaded) return Error{role + " source '" + record.name + "': " + loaded.error().message};
    if (tasks.empty()) return std::move(loaded).value();
    auto derived = data::applyLabelTasks(*loaded, toDataTasks(tasks));
    if (!derived) return Error{role + " tasks on '" + record.name + "': " + derived.error().message};
    return std::move(derived).value();
}

const project::SpecSource* specSourceNamed(const project::ProjectSpec& spec, const std::string& name) {
    for (const auto& s : spec.publicSources)
        if (s.written.name == name) return &s;
    return nullptr;
}

// One public source as a set of components of the study's shape.
Result<data::NamedImageSet> loadPublicSource(const project::SourceRecord& record, const project::ProjectSpec& spec,
                                             const data::ImageShape& shape) {
    auto images = loadWithTasks(record, sourceOptions(spec, record.name), spec.publicTasksOf(record.name), "public");
    if (!images) return images.error();
    data::ImageDataset loaded = std::move(images).value();
    if (loaded.numLabels() == 0) loaded = data::withAllImagesPositive(std::move(loaded), "all");
    const project::SpecSource* written = specSourceNamed(spec, record.name);
    auto resize = data::parseResizeRule(written ? written->resize : "");
    if (!resize) return Error{"public source '" + record.name + "': " + resize.error().message};
    auto colour = data::parseColourRule(written ? written->colour : "");
    if (!colour) return Error{"public source '" + record.name + "': " + colour.error().message};
    auto fitted = data::fitImages(std::move(loaded), shape, *resize, *colour, record.name);
    if (!fitted) return fitted.error();
    return data::NamedImageSet{record.name, std::move(fitted).value()};
}

}  // namespace

Result<ImageStudy> loadImageStudy(const std::vector<project::SourceRecord>& sources, const project::ProjectSpec& spec,
                                  std::uint64_t studySeed) {
    std::vector<const project::SourceRecord*> publicSources;
    const project::SourceRecord* sensitiveSource = nullptr;
    for (const auto& s : sources) {
        if (s.role == project::SourceRole::Public) publicSources.push_back(&s);
        if (s.role == project::SourceRole::Sensitive) sensitiveSource = &s;
    }
    if (!sensitiveSource) return Error{"the project needs a public and a sensitive image source"};
    // A project an older dpmix created may not declare the label set; it is never read from the data.
    if (auto undeclared = project::refuseUndeclaredLabels(spec.sensitive.written)) return *undeclared;
    if (publicSources.empty())
        return Error{
            "this study registers no public source: DP-MixMin and its baselines pretrain on public data; "
            "a study without public data can run Private Set Generation (dpmix psg)"};

    ImageStudy study;
    auto sens =
        loadWithTasks(*sensitiveSource, sourceOptions(spec, sensitiveSource->name), spec.sensitiveTasks, "sensitive");
    if (!sens) return sens.error();
    study.sensitiveImages = std::move(sens).value();
    const data::ImageShape shape{study.sensitiveImages.channels, study.sensitiveImages.height,
                                 study.sensitiveImages.width};
    std::vector<data::NamedImageSet> sets;
    for (const auto* record : publicSources) {
        auto set = loadPublicSource(*record, spec, shape);
        if (!set) return set.error();
        sets.push_back(std::move(set).value());
    }
    auto joined = data::joinImageSets(std::move(sets));
    if (!joined) return joined.error();
    study.publicImages = std::move(joined->images);
    study.publicSourceNames = std::move(joined->sourceNames);
    study.componentSource = std::move(joined->componentSource);
    study.publicImageSource = std::move(joined->imageSource);
    study.publicSourceImages = std::move(joined->sourceImages);
    study.componentDefined = std::move(joined->defined);
    study.componentNames = study.publicImages.labelNames;
    study.taskNames = study.sensitiveImages.labelNames;
    study.downstreamModel = spec.finetune.model;
    study.resnetWidth = static_cast<int>(spec.finetune.resnetWidth);
    if (study.components() < 2)
        return Error{"the public data gives " + std::to_string(study.components()) +
                     " component(s): mixing needs at least 2 (label tasks of a source, or several sources)"};
    if (study.tasks() < 1) return Error{"the sensitive source has no task to learn"};
    // The unit of each split: the user, or the example by its content, so that a unit's side
    // never depends on the other units (docs/PRIVACY.md, "Stable splits"). PSG and the AdaMix-R
    // experiment split with the same function (sensitive_split.h).
    auto grouping = sensitiveGrouping(study.sensitiveImages, spec, sensitiveSource->name);
    if (!grouping) return grouping.error();
    study.grouping = std::move(grouping).value();
    auto split = data::trainValidationTestSplit(study.sensitiveImages.size(), studySeed, study.grouping);
    if (!split) return Error{"splitting the sensitive data: " + split.error().message};
    study.sensitiveSplit = std::move(split).value();
    if (spec.finetune.adamix())
        if (auto e = loadShotPool(study, sources, spec, studySeed)) return *e;
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
