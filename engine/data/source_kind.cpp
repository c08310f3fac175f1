#include "engine/data/source_kind.h"

#include <stdexcept>

namespace dpmix::data {

const std::vector<SourceKindTraits>& allSourceKinds() {
    static const std::vector<SourceKindTraits> table = {
        {.kind = SourceKind::Images, .name = "images"},
        {.kind = SourceKind::Text, .name = "text"},
    };
    return table;
}

std::string nameOf(SourceKind kind) {
    for (const auto& t : allSourceKinds())
        if (t.kind == kind) return std::string(t.name);
    throw std::logic_error("data::nameOf: a SourceKind without a row in the table");
}

Result<SourceKind> parseSourceKind(std::string_view name) {
    for (const auto& t : allSourceKinds())
        if (name == t.name) return t.kind;
    std::string expected;
    for (const auto& t : allSourceKinds())
        expected += (expected.empty() ? "\"" : " or \"") + std::string(t.name) + "\"";
    return Error{"\"" + std::string(name) + "\" is not a kind of source: expected " + expected};
}

}  // namespace dpmix::data
