#pragma once
// The image loaders behind loadImageSource (options are documented in source_loader.h).
#include "engine/core/result.h"
#include "engine/data/source_loader.h"

#include <string>
#include <vector>

namespace dpmix::data {

Result<ImageDataset> loadIdxSource(const SourceSpec& spec);
Result<ImageDataset> loadMnistJsonSource(const SourceSpec& spec);
Result<ImageDataset> loadCsvImagesSource(const SourceSpec& spec, const LoadControl& control = {});
Result<ImageDataset> loadGlyphsSource(const SourceSpec& spec, const LoadControl& control = {});
Result<ImageDataset> loadIconThemeSource(const SourceSpec& spec, const LoadControl& control = {});
Result<ImageDataset> loadDicomSource(const SourceSpec& spec, const LoadControl& control = {});

/// Sets labelNames/labels from class ids using the "classes" and "tasks" options
/// (shared by the class-labelled loaders idx and mnist-json). Without "classes" the names are
/// "0".."K-1", K = max(max id + 1, defaultClassCount).
Status attachClassTargets(const SourceSpec& spec, const std::vector<int>& classIds, ImageDataset& dataset,
                          int defaultClassCount = 0);

/// The same with the class names given by the loader (glyphs: the characters; icon-theme: the
/// contexts): one-hot targets over them, or the "tasks" option's targets.
Status attachNamedClassTargets(const SourceSpec& spec, const std::vector<int>& classIds,
                               const std::vector<std::string>& classNames, ImageDataset& dataset);

}  // namespace dpmix::data
