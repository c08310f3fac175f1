// The dicom loader's reading of one file, on bytes a fuzzer makes (seeded with GDCM-written files:
// 8/16-bit, MONOCHROME1/2, rescale and window, RLE, multi-frame, colour, truncated ones).
// DPMIX_FUZZ_DICOM_IN_PROCESS set: GDCM reads in this process (readDicomBytesInProcess), so its
// own aborts count as crashes — how often a damaged file would end the program without the child
// process. Unset: what the loader runs (readDicomBytes: GDCM in a child), which must never crash,
// whatever GDCM does; then the parent's decoding of the answer and the display transform of the
// frames are checked here too (values in [0,1]).
#include "engine/data/dicom_file.h"
#include "fuzz_support.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool inProcess = std::getenv("DPMIX_FUZZ_DICOM_IN_PROCESS") != nullptr;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    dpmix::data::DicomReadRules rules;
    rules.frames = size % 2 ? dpmix::data::DicomFrames::Split : dpmix::data::DicomFrames::Refuse;
    rules.colour = size % 3 ? dpmix::data::DicomColour::Luminance : dpmix::data::DicomColour::Refuse;
    rules.maxPixelBytes = 64u << 20;
    rules.secondsPerFile = 5;  // below libFuzzer's -timeout: a GDCM hang is the child's, stopped here
    const std::vector<dpmix::data::DicomTag> tags = {{0x0010, 0x0020}, {0x0020, 0x000d}, {0x0018, 0x0015}};
    auto read = inProcess ? dpmix::data::readDicomBytesInProcess(bytes, tags, rules)
                          : dpmix::data::readDicomBytes(bytes, tags, rules);
    if (read)
        for (const auto& frame : read->frames)
            for (float v : frame.pixels)
                if (!(v >= 0.0f && v <= 1.0f)) __builtin_trap();
    return 0;
}
