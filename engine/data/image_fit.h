#pragma once
// Fitting a public image set to the study's shape (docs/METHODS.md, "Several public sources"):
// one model reads every image, so a source of another size or colour is converted by a rule the
// spec names explicitly. Nothing is converted silently.
#include "engine/core/result.h"
#include "engine/data/source_loader.h"

#include <string>

namespace dpmix::data {

enum class ResizeRule { None, Bilinear };    // Bilinear: antialiased triangle filter (resizeImage)
enum class ColourRule { None, Replicate, Luminance };  // grey -> 3 equal channels; RGB -> grey

struct ImageShape {
    int channels = 1, height = 0, width = 0;
};

/// Parses the spec's words ("" = none): "bilinear"; "replicate", "luminance".
Result<ResizeRule> parseResizeRule(const std::string& text);
Result<ColourRule> parseColourRule(const std::string& text);

/// `images` converted to `target`. An image set already of that shape is returned unchanged
/// (bit for bit) whatever the rules. Otherwise a size difference needs ResizeRule::Bilinear and a
/// channel difference the matching ColourRule (grey→RGB: Replicate, RGB→grey: Luminance with
/// 0.299 R + 0.587 G + 0.114 B); else an error naming `name`, both shapes and the rule to set.
/// Colour is converted before resizing. Labels, masks and users are kept.
Result<ImageDataset> fitImages(const ImageDataset& images, const ImageShape& target, ResizeRule resize,
                               ColourRule colour, const std::string& name);

}  // namespace dpmix::data
