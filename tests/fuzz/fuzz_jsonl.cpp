// The JSONL text loader on an arbitrary file: bad JSON, non-object lines, numbers beyond
// double range, invalid UTF-8 under each encoding_errors policy.
#include "engine/data/text_loaders.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    // The first byte picks the encoding policy, the rest is the file.
    static const char* const kPolicies[] = {"strict", "replace", "skip"};
    const std::string path = dpmix::fuzz::writeScratch(data + 1, size - 1, ".jsonl");
    dpmix::data::SourceSpec spec{"fuzz", "jsonl", path, {{"encoding_errors", kPolicies[data[0] % 3]}}};
    (void)dpmix::data::loadJsonlSource(spec);
    return 0;
}
