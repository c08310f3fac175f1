#pragma once
// Lists of names in messages and in stored options: one spelling of "a, b, c" and "\"a\", \"b\"",
// so every error that lists what it expected reads the same (docs/ARCHITECTURE.md, engine/core).

#include <string>
#include <string_view>

namespace dpmix::core {

enum class Quoted { No, Yes };

/// The items of `names` (any range of things a std::string can be appended from), separated
/// by `separator`, each in double quotes when `quoted` is Quoted::Yes. Empty for no items.
template <class Range>
std::string joinedList(const Range& names, std::string_view separator = ", ", Quoted quoted = Quoted::No) {
    std::string out;
    bool first = true;
    for (const auto& name : names) {
        if (!first) out.append(separator);
        first = false;
        if (quoted == Quoted::Yes) out.append("\"");
        out.append(std::string_view(name));
        if (quoted == Quoted::Yes) out.append("\"");
    }
    return out;
}

/// "\"a\", \"b\"": the quoted, comma-separated form most messages use.
template <class Range>
std::string quotedList(const Range& names) {
    return joinedList(names, ", ", Quoted::Yes);
}

}  // namespace dpmix::core
