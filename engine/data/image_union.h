#pragma once
// The public images of a study with several sources as one set (docs/METHODS.md, "Several public
// sources"): images concatenated in source order; the label columns are the components, source
// by source, each defined only on its own source's images (`defined`), named "source / task".
#include "engine/core/result.h"
#include "engine/data/source_loader.h"

#include <string>
#include <vector>

namespace dpmix::data {

struct NamedImageSet {
    std::string name;     // the source's name
    ImageDataset images;  // already of the study's shape; labels = this source's components
};

struct ImageUnion {
    ImageDataset images;                       // N = Σ N_s images, K = Σ k_s label columns
    std::vector<std::string> sourceNames;      // S
    std::vector<std::size_t> componentSource;  // K: the source of each component
    std::vector<std::size_t> imageSource;      // N: the source of each image
    std::vector<std::size_t> sourceImages;     // S: N_s
    /// 1 where component c is defined on image j (its own source), row-major N × K.
    std::vector<unsigned char> defined;
};

/// Joins `sets` (at least one). Component names are the task names when there is one set, and
/// "source / task" otherwise. Errors: sets of different shapes, a set without images or without
/// label columns, duplicate component names.
Result<ImageUnion> joinImageSets(std::vector<NamedImageSet> sets);

/// A source without labels as one component of its own, "all of source S": every image positive.
ImageDataset withAllImagesPositive(ImageDataset images, const std::string& componentName);

}  // namespace dpmix::data
