#pragma once
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace dpmix::project {

// Lenient JSON is refused while it is parsed: a key given twice in one object (the last would
// silently win) and nesting deeper than any spec needs (a hostile file nested 100k levels deep
// would otherwise exhaust the stack). A NUL byte is not JSON and never valid in a spec.
struct StrictJsonError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Parses `text` as JSON, refusing the lenient forms above with StrictJsonError; syntax errors and
/// numbers beyond double range throw nlohmann::json's own exceptions.
nlohmann::json parseStrictJson(const std::string& text);

}  // namespace dpmix::project
