#include "engine/data/source_kind.h"

#include "engine/core/kind_table.h"

namespace dpmix::data {

const std::vector<SourceKindTraits>& allSourceKinds() {
    static const std::vector<SourceKindTraits> table = {
        {.kind = SourceKind::Images, .name = "images"},
        {.kind = SourceKind::Text, .name = "text"},
    };
    return table;
}

std::string nameOf(SourceKind kind) {
    return std::string(core::rowOf(allSourceKinds(), &SourceKindTraits::kind, kind, "data::SourceKind").name);
}

Result<SourceKind> parseSourceKind(std::string_view name) {
    return core::parseSpelling(allSourceKinds(), &SourceKindTraits::kind, name, "a kind of source");
}

}  // namespace dpmix::data
