#pragma once
// The sensitive data's train / validation / test split, one function for every stage that
// trains or evaluates on it — the image study, PSG and the AdaMix-R experiment — so the same
// seed gives the same rows everywhere (docs/ADAMIX.md and docs/PSG.md say they share the
// study's test split; they once hashed the source's own classes instead of the study's task
// labels and split other rows). The unit is the user at user level, else the example by the
// content of its pixels and the study's sensitive labels (docs/PRIVACY.md, "Stable splits").
#include "engine/core/result.h"
#include "engine/data/source_loader.h"
#include "engine/data/splits.h"
#include "engine/project/project_spec.h"

#include <cstdint>
#include <string>

namespace dpmix::pipeline {

/// The grouping of images that carry the study's sensitive labels (the spec's sensitive tasks
/// applied, as loadImageStudy holds them). At user level every image needs a non-empty user.
Result<data::SplitGrouping> sensitiveGrouping(const data::ImageDataset& studyImages, const project::ProjectSpec& spec,
                                              const std::string& sourceName);

/// The study's split of the sensitive source as its loader gives it (its own classes, single
/// label): the spec's sensitive tasks are applied for the content keys, then split as the study.
Result<data::ThreeWaySplit> sensitiveSplitOfSource(const data::ImageDataset& loaded, const project::ProjectSpec& spec,
                                                   const std::string& sourceName, std::uint64_t studySeed);

}  // namespace dpmix::pipeline
