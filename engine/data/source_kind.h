#pragma once
// What a data source holds, defined once: images (labelled pixels) or text (documents). The
// loaders say it (SourceSummary), the project file stores its spelling in the sources table, and
// the studies ask it of a source instead of comparing its spelling.
#include "engine/core/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace dpmix::data {

enum class SourceKind { Images, Text };

struct SourceKindTraits {
    SourceKind kind = SourceKind::Images;
    std::string_view name;  // as the project file stores it: "images"
};

const std::vector<SourceKindTraits>& allSourceKinds();
/// The spelling the project file stores.
std::string nameOf(SourceKind kind);
/// A stored spelling; the error names the value and lists the accepted ones.
Result<SourceKind> parseSourceKind(std::string_view name);

}  // namespace dpmix::data
