// The IDX reader behind a (maybe gzip-compressed) file: forged headers, overflowing
// dimensions, truncated or forged gzip streams must be errors, never crashes or huge allocations.
#include "engine/data/file_bytes.h"
#include "engine/data/idx_file.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = dpmix::fuzz::writeScratch(data, size, ".idx");
    auto bytes = dpmix::data::readFileMaybeGzip(path);
    if (bytes) (void)dpmix::data::parseIdx(std::move(bytes).value(), path);
    return 0;
}
