#pragma once
// Fitting a public image set to the study's shape (docs/METHODS.md, "Several public sources"):
// one model reads every image, so a source of another size or colour is converted by a rule the
// spec names explicitly. Nothing is converted silently.
#include "engine/core/result.h"
#include "engine/data/source_loader.h"

#include <string>

namespace dpmix::data {

enum class ResizeRule { None, Bilinear };              // Bilinear: antialiased triangle filter (resizeImage)
enum class ColourRule { None, Replicate, Luminance };  // grey -> 3 equal channels; RGB -> grey

struct ImageShape {
    int channels = 1, height = 0, width = 0;
};

/// Parses the spec's words ("" = none): "bilinear"; "replicate", "luminance".
Result<ResizeRule> parseResizeRule(const std::string& text);
Result<ColourRule> parseColourRule(const std::string& text);

/// What reading images of shape `from` as `to` takes: a resize when height or width differ, and
/// the colour rule for a channel difference (grey -> RGB: Replicate, RGB -> grey: Luminance);
/// `convertible` is false for channel counts no rule converts. The one statement of the rule: the
/// loader, `dpmix new` and the workbench's source dialog all ask it.
struct FitNeeds {
    bool resize = false;
    ColourRule colour = ColourRule::None;
    bool convertible = true;
};
FitNeeds fitNeeds(const ImageShape& from, const ImageShape& to);

/// Empty when the rules fit `from` to `to`; else what differs and the rule to set, e.g. "its
/// images are 1x64x64 but the sensitive images are 1x28x28; set "resize": "bilinear" on the source
/// to resize them to 28x28" (the caller names the source).
std::string fitProblem(const ImageShape& from, const ImageShape& to, ResizeRule resize, ColourRule colour);

/// `images` converted to `target` (taken by value: an image set already of that shape is moved
/// through unchanged, bit for bit, whatever the rules). Otherwise the rules must fit it
/// (fitProblem), else an error naming `name`. Colour is converted before resizing. Labels, masks
/// and users are kept.
Result<ImageDataset> fitImages(ImageDataset images, const ImageShape& target, ResizeRule resize, ColourRule colour,
                               const std::string& name);

}  // namespace dpmix::data
