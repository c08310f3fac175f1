// The project spec parser on arbitrary text: it must answer with a spec or an Error, never
// crash, hang or throw (nesting depth, numbers beyond double range, NUL bytes, duplicate keys).
#include "engine/project/spec_json.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    // No file checks: the parser alone (paths stay as written), with today's ranges.
    const dpmix::project::SpecLocation where{"/nonexistent", "/nonexistent", false, true};
    auto spec = dpmix::project::parseProjectSpec(text, where, "fuzz.json");
    if (spec) (void)dpmix::project::projectSpecToJson(*spec);  // a parsed spec always writes back
    return 0;
}
