#pragma once
// The inputs of an image study, loaded once per project: the public images with their k label
// tasks (the mixture components), the sensitive images with their tasks, and the splits of the
// sensitive data (train / validation / test from the study seed, then A / B by ρ per run seed).
#include "engine/core/result.h"
#include "engine/data/source_loader.h"
#include "engine/data/splits.h"
#include "engine/project/project_records.h"
#include "engine/project/project_spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::pipeline {

/// AdaMix-R's pool of public shots (stages.finetune.mechanism = "adamix-r"; docs/ADAMIX.md, "As
/// a study's fine-tuning mechanism"): the images of the public source stages.finetune.shots_source
/// that the proxy holds out (so no model of any run trained on them), with their labels for each
/// sensitive task. Rows index ImageStudy::publicImages.
struct ShotPool {
    std::string source;               // the public source's name
    std::vector<std::size_t> rows;    // candidate rows of publicImages, ascending
    std::vector<signed char> labels;  // rows.size() × tasks: 1, 0, or -1 (label unknown)
    std::size_t sourceImages = 0;     // images of the source (held out or not)
};

struct ImageStudy {
    data::ImageDataset publicImages;          // labels: the k public label tasks (N_pub × k)
    data::ImageDataset sensitiveImages;       // labels: the sensitive tasks (N × T)
    std::vector<std::string> componentNames;  // k public tasks (mixture components)
    // Several public sources (docs/METHODS.md, "Several public sources"): publicImages holds them
    // one after the other; component c belongs to source componentSource[c] and is defined only
    // on that source's images. One source: one name, everything defined, componentDefined empty.
    std::vector<std::string> publicSourceNames;   // S
    std::vector<std::size_t> componentSource;     // k
    std::vector<std::size_t> publicImageSource;   // N_pub
    std::vector<std::size_t> publicSourceImages;  // S: images per source
    std::vector<unsigned char> componentDefined;  // N_pub × k, 1 = defined (empty: all defined)
    std::vector<std::string> taskNames;           // T sensitive tasks
    data::SplitGrouping grouping;                 // users of the sensitive data (empty: example level)
    data::ThreeWaySplit sensitiveSplit;           // train / validation / test indices into sensitiveImages
    std::optional<ShotPool> shotPool;             // AdaMix-R fine-tuning only
    std::string downstreamModel = "small-cnn";    // the spec's stages.finetune.model
    int resnetWidth = 64;                         // the spec's stages.finetune.resnet_width

    /// User-level DP: every mechanism's unit is the user (grouping.users holds each image's user).
    bool userLevel() const { return !grouping.users.empty(); }
    std::size_t components() const { return componentNames.size(); }
    bool multiSource() const { return publicSourceNames.size() > 1; }
    std::size_t tasks() const { return taskNames.size(); }
    /// Label (0/1) of sensitive example `index` for task `task`.
    float sensitiveLabel(std::size_t index, std::size_t task) const {
        return sensitiveImages.labels[index * sensitiveImages.numLabels() + task];
    }
};

/// Split A (mixture learning) and split B (fine-tuning) of the sensitive training set for one
/// run seed, as indices into sensitiveImages.
struct RhoSplit {
    std::vector<std::size_t> a;
    std::vector<std::size_t> b;
};

/// Loads the study from a project's registered sources and spec. Each public image source's
/// classes become its components through its spec.publicTasks (or its own label columns when
/// it has none; a source without labels is one component, "all"), fitted to the sensitive
/// images' shape by the source's resize/colour rules; likewise the sensitive tasks. The train / validation / test split
/// uses `studySeed` (the spec's first seed), so every run of a project shares one test set.
Result<ImageStudy> loadImageStudy(const std::vector<project::SourceRecord>& sources, const project::ProjectSpec& spec,
                                  std::uint64_t studySeed);

/// G_ULS when the spec gives none: the most images of a sampled user per step (the paper's value
/// for user-level fine-tuning; docs/PRIVACY.md, "Unit of privacy").
inline constexpr long long kDefaultUserGroupSize = 15;

/// The ρ split of the study's training set for a run seed (user boundaries when user-level).
Result<RhoSplit> splitForRun(const ImageStudy& study, double rho, std::uint64_t runSeed);

}  // namespace dpmix::pipeline
