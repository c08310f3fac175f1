#pragma once
// Reading one DICOM file (GDCM): its pixel data decoded (raw, JPEG baseline/lossless, JPEG-LS,
// JPEG 2000, RLE: what GDCM decodes), turned into display values the way a DICOM viewer does —
// the stored bits, then the modality rescale (slope, intercept), then a linear VOI window,
// MONOCHROME1 inverted — as grey floats in [0,1]; and the header values the loader asks for.
// Errors say what is wrong with the file in words and never quote a header value: a header holds
// patient names, ids, dates and UIDs (docs/PRIVACY.md, "DICOM sources"). The caller names the file.
#include "engine/core/result.h"
#include "engine/data/image_file.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dpmix::data {

/// A header element by its group and element numbers, e.g. PatientID = (0010,0020).
struct DicomTag {
    std::uint16_t group = 0, element = 0;
    bool operator<(const DicomTag& o) const { return group != o.group ? group < o.group : element < o.element; }
    bool operator==(const DicomTag& o) const = default;
};

/// A tag named by its DICOM keyword ("PatientID", "BodyPartExamined": GDCM's public dictionary)
/// or as "gggg,eeee" in hex; the error names the text.
Result<DicomTag> parseDicomTag(const std::string& text);
/// "(0010,0020)".
std::string dicomTagText(const DicomTag& tag);
/// "PatientID (0010,0020)"; the bare "(gggg,eeee)" for a tag the dictionary does not name.
std::string dicomTagLabel(const DicomTag& tag);

enum class DicomFrames { Refuse, Split };      // a multi-frame file: an error, or one image per frame
enum class DicomColour { Refuse, Luminance };  // a colour file: an error, or its luma (BT.601)
enum class DicomWindowFrom { File, MinMax, Fixed };

/// The VOI window: the file's first (WindowCenter, WindowWidth), else the image's own range
/// (File); always the image's range after rescale (MinMax); or the one given (Fixed, in rescaled
/// units such as Hounsfield units).
struct DicomWindow {
    DicomWindowFrom from = DicomWindowFrom::File;
    double centre = 0, width = 1;
};

struct DicomReadRules {
    DicomFrames frames = DicomFrames::Refuse;
    DicomColour colour = DicomColour::Refuse;
    DicomWindow window;
    std::uint64_t maxPixelBytes = std::uint64_t(1) << 30;  // a forged header cannot make us allocate more
    int secondsPerFile = 120;  // in the child process: a JPEG 2000 image decodes in seconds, a hang is stopped
};

/// One file: its frames as 1×H×W grey images in [0,1] (empty when pixels were not asked for) and
/// the value of each tag asked for that the file holds non-empty (trailing spaces removed).
struct DicomInstance {
    std::vector<DecodedImage> frames;
    std::map<DicomTag, std::string> values;
    std::vector<DicomTag> present;  // every top-level tag in the file's data set (for "tags found")
};

/// Reads a DICOM file's bytes (a Part 10 file with its 128-byte preamble and "DICM", or a bare
/// data set). `withPixels` false reads the header only. Errors: not DICOM, no pixel data, a
/// transfer syntax GDCM cannot decode (named), a multi-frame or colour file the rules refuse, an
/// unsupported bit depth, a header whose sizes disagree with the data, and GDCM aborting or
/// hanging on damaged data: it runs in a child process (isolated_call.h).
Result<DicomInstance> readDicomBytes(const std::string& bytes, const std::vector<DicomTag>& tags,
                                     const DicomReadRules& rules, bool withPixels = true);
/// Reads the files `paths` (through the file door) with readDicomBytes's rules, all in one child
/// process while it lives, handing each file's result to `take` in order (false stops).
Status readDicomFiles(const std::vector<std::string>& paths, const std::vector<DicomTag>& tags,
                      const DicomReadRules& rules, const std::function<bool(std::size_t, Result<DicomInstance>)>& take);
/// The same in this process: a damaged file may abort the program inside GDCM (for the fuzz
/// harness that measures how often, and for the child).
Result<DicomInstance> readDicomBytesInProcess(const std::string& bytes, const std::vector<DicomTag>& tags,
                                              const DicomReadRules& rules, bool withPixels = true);

/// True when `bytes` start like a Part 10 file ("DICM" at offset 128): the folder walk reads
/// these and skips other files (README, label CSVs, thumbnails).
bool looksLikeDicomFile(const std::string& prefix);

/// The files a DICOMDIR's bytes reference (every directory record's ReferencedFileID), as paths
/// relative to the DICOMDIR's folder with '/' between components, in record order.
Result<std::vector<std::string>> dicomDirFiles(const std::string& bytes);  // in a child process
Result<std::vector<std::string>> dicomDirFilesInProcess(const std::string& bytes);

/// Applies the modality rescale, the VOI window (DICOM PS3.3 C.11.2.1.2.1, linear) and the
/// MONOCHROME1 inversion to stored values: the display value in [0,1] of each. Exposed for tests.
std::vector<float> dicomDisplayValues(const std::vector<double>& stored, double slope, double intercept,
                                      const DicomWindow& window, const std::vector<double>& fileWindow,
                                      bool monochrome1);

}  // namespace dpmix::data
