// One DICOM file through GDCM: header values, decoded pixel data, and the display transform.
#include "engine/data/dicom_file.h"

#include <gdcmDict.h>
#include <gdcmDicts.h>
#include <gdcmGlobal.h>
#include <gdcmImageReader.h>
#include <gdcmReader.h>
#include <gdcmSequenceOfItems.h>
#include <gdcmStringFilter.h>
#include <gdcmTrace.h>
#include <gdcmUIDs.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>

namespace dpmix::data {
namespace {

const DicomTag kRescaleIntercept{0x0028, 0x1052}, kRescaleSlope{0x0028, 0x1053};
const DicomTag kWindowCentre{0x0028, 0x1050}, kWindowWidth{0x0028, 0x1051};
const DicomTag kPixelData{0x7fe0, 0x0010};

// GDCM writes its warnings to std::cerr, and a warning may quote a header value: silenced once
// for the process, so nothing of a header reaches a log (docs/PRIVACY.md, "DICOM sources").
void silenceGdcm() {
    static std::once_flag once;
    std::call_once(once, [] {
        gdcm::Trace::SetDebug(false);
        gdcm::Trace::SetWarning(false);
        gdcm::Trace::SetError(false);
    });
}

std::string trimmedValue(std::string value) {
    while (!value.empty() && (value.back() == ' ' || value.back() == '\0')) value.pop_back();
    const auto first = value.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : value.substr(first);
}

// The first of a multi-valued decimal string ("40\80" -> 40); nullopt when absent or not a number.
std::optional<double> firstNumber(const std::map<DicomTag, std::string>& values, const DicomTag& tag) {
    const auto it = values.find(tag);
    if (it == values.end()) return std::nullopt;
    std::string text = it->second.substr(0, it->second.find('\\'));
    text = trimmedValue(text);
    if (!text.empty() && text.front() == '+') text.erase(0, 1);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

// The Part 10 file meta group (0002,xxxx after "DICM") and the data set's first element, walked
// before GDCM sees them: GDCM's reader asserts on damaged ones (gdcmFileMetaInformation.cxx, found
// by fuzz_dicom), which ends the (child) process. Explicit VR little endian, as PS3.10 7.1
// requires: each element a VR of two capital letters and a length that stays inside the file.
struct ElementWalk {
    const std::string& bytes;
    std::uint32_t u16(std::size_t at) const {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at])) |
               static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 8;
    }
    // The explicit-VR element at `at`: its header and value length, or nullopt when damaged.
    std::optional<std::pair<std::uint64_t, std::uint64_t>> element(std::size_t at) const {
        if (at + 8 > bytes.size()) return std::nullopt;
        const char v0 = bytes[at + 4], v1 = bytes[at + 5];
        if (v0 < 'A' || v0 > 'Z' || v1 < 'A' || v1 > 'Z') return std::nullopt;
        const std::string vr{v0, v1};
        if (vr != "OB" && vr != "OW" && vr != "OF" && vr != "SQ" && vr != "UT" && vr != "UN")
            return at + 8 + u16(at + 6) <= bytes.size()
                       ? std::optional{std::pair<std::uint64_t, std::uint64_t>{8, u16(at + 6)}}
                       : std::nullopt;
        if (at + 12 > bytes.size()) return std::nullopt;
        const std::uint64_t length = u16(at + 8) | static_cast<std::uint64_t>(u16(at + 10)) << 16;
        if (length == 0xffffffff) return std::pair<std::uint64_t, std::uint64_t>{12, 0};  // undefined: items follow
        if (at + 12 + length > bytes.size()) return std::nullopt;
        return std::pair<std::uint64_t, std::uint64_t>{12, length};
    }
};

Status checkFileMetaGroup(const std::string& bytes) {
    if (!looksLikeDicomFile(bytes)) return std::nullopt;  // no meta group: GDCM reads a bare data set
    const ElementWalk walk{bytes};
    std::size_t at = 132;
    int elements = 0;
    std::optional<std::uint64_t> groupLength;
    std::string syntax;
    while (at + 8 <= bytes.size() && walk.u16(at) == 0x0002) {
        const auto e = walk.element(at);
        if (!e || e->second == 0xffffffff)
            return Error{"its file meta information is damaged (an element without a VR, or running past the end)"};
        if (walk.u16(at + 2) == 0x0000 && e->second == 4)
            groupLength = walk.u16(at + 8) | static_cast<std::uint64_t>(walk.u16(at + 10)) << 16;
        if (walk.u16(at + 2) == 0x0010) syntax = bytes.substr(at + e->first, e->second);
        at += e->first + e->second;
        ++elements;
    }
    if (elements == 0) return Error{"its file meta information is missing after 'DICM'"};
    if (groupLength && 132 + 12 + *groupLength != at)
        return Error{"its file meta information is damaged (its group length disagrees with its elements)"};
    if (at + 8 > bytes.size()) return Error{"it ends after its file meta information (no data set)"};
    const bool implicitVr = syntax.rfind("1.2.840.10008.1.2", 0) == 0 && syntax.size() <= 18;  // "…1.2" + pad
    const bool bigEndian = syntax.rfind("1.2.840.10008.1.2.2", 0) == 0;  // retired; GDCM judges it
    if (!implicitVr && !bigEndian && !walk.element(at))
        return Error{"its data set is damaged at its first element (no VR, or a length past the end of the file)"};
    return std::nullopt;
}

std::string transferSyntaxName(const gdcm::TransferSyntax& syntax) {
    const char* uid = syntax.GetString();
    if (!uid) return "an unknown transfer syntax";
    gdcm::UIDs known;
    const bool named = known.SetFromUID(uid) && known.GetName() && *known.GetName();
    return named ? std::string(known.GetName()) + " (" + uid + ")" : std::string(uid);
}

// The header values asked for, and the tags present, from a parsed data set.
void readValues(const gdcm::File& file, const std::vector<DicomTag>& tags, DicomInstance& out) {
    const gdcm::DataSet& dataSet = file.GetDataSet();
    gdcm::StringFilter filter;
    filter.SetFile(file);
    for (const auto& tag : tags) {
        const gdcm::Tag t(tag.group, tag.element);
        if (!dataSet.FindDataElement(t) || dataSet.GetDataElement(t).IsEmpty()) continue;
        std::string value = trimmedValue(filter.ToString(t));
        if (!value.empty()) out.values[tag] = std::move(value);
    }
    for (const auto& element : dataSet.GetDES())
        out.present.push_back({element.GetTag().GetGroup(), element.GetTag().GetElement()});
}

struct PixelLayout {
    unsigned columns = 0, rows = 0, frames = 1, samples = 1, bitsAllocated = 0, bitsStored = 0;
    bool isSigned = false, planar = false, monochrome1 = false, ybr = false;
    std::uint64_t frameBytes() const { return std::uint64_t(columns) * rows * samples * (bitsAllocated / 8); }
};

Result<PixelLayout> layoutOf(const gdcm::Image& image, const DicomReadRules& rules) {
    PixelLayout l;
    l.columns = image.GetDimension(0);
    l.rows = image.GetDimension(1);
    l.frames = image.GetNumberOfDimensions() >= 3 ? image.GetDimension(2) : 1;
    const gdcm::PixelFormat& format = image.GetPixelFormat();
    l.samples = format.GetSamplesPerPixel();
    l.bitsAllocated = format.GetBitsAllocated();
    l.bitsStored = format.GetBitsStored();
    l.isSigned = format.GetPixelRepresentation() == 1;
    l.planar = image.GetPlanarConfiguration() == 1;
    const auto photometric = image.GetPhotometricInterpretation();
    l.monochrome1 = photometric == gdcm::PhotometricInterpretation::MONOCHROME1;
    l.ybr = photometric == gdcm::PhotometricInterpretation::YBR_FULL ||
            photometric == gdcm::PhotometricInterpretation::YBR_FULL_422;
    const bool monochrome = l.monochrome1 || photometric == gdcm::PhotometricInterpretation::MONOCHROME2;
    const bool colour = photometric == gdcm::PhotometricInterpretation::RGB || l.ybr;
    const char* photometricName = gdcm::PhotometricInterpretation::GetPIString(photometric);
    const std::string pi = photometricName ? photometricName : "unknown";
    if (l.columns == 0 || l.rows == 0 || l.frames == 0) return Error{"its image has no pixels (0 rows or columns)"};
    if (l.bitsAllocated != 8 && l.bitsAllocated != 16)
        return Error{"its pixels have " + std::to_string(l.bitsAllocated) + " bits allocated, expected 8 or 16"};
    if (l.bitsStored == 0 || l.bitsStored > l.bitsAllocated)
        return Error{"its pixels store " + std::to_string(l.bitsStored) + " of " + std::to_string(l.bitsAllocated) +
                     " bits, expected 1 to " + std::to_string(l.bitsAllocated)};
    if (!(monochrome && l.samples == 1) && !(colour && l.samples == 3))
        return Error{"its photometric interpretation " + pi + " with " + std::to_string(l.samples) +
                     " samples per pixel is not read (expected MONOCHROME1, MONOCHROME2, RGB or YBR_FULL)"};
    if (colour && rules.colour == DicomColour::Refuse)
        return Error{"it is a colour image (" + pi + "); set option colour = luminance to read its luma as grey"};
    if (l.frames > 1 && rules.frames == DicomFrames::Refuse)
        return Error{"it is a multi-frame file (" + std::to_string(l.frames) +
                     " frames); set option frames = split to read each frame as an image"};
    if (l.frameBytes() * l.frames > rules.maxPixelBytes)
        return Error{"its header declares " + std::to_string(l.frameBytes() * l.frames) +
                     " bytes of pixel data, more than the " + std::to_string(rules.maxPixelBytes) + " read"};
    return l;
}

// The stored value of sample `index`: the low bitsStored bits, sign-extended when signed.
double storedValue(const char* buffer, std::size_t index, const PixelLayout& l) {
    std::uint32_t raw = 0;
    if (l.bitsAllocated == 8) {
        raw = static_cast<unsigned char>(buffer[index]);
    } else {
        std::uint16_t v = 0;
        std::memcpy(&v, buffer + 2 * index, 2);  // GDCM hands pixels over in the machine's byte order
        raw = v;
    }
    const std::uint32_t mask = l.bitsStored >= 32 ? 0xffffffffu : (1u << l.bitsStored) - 1;
    raw &= mask;
    if (l.isSigned && (raw >> (l.bitsStored - 1)) & 1u) return static_cast<double>(raw) - std::ldexp(1.0, l.bitsStored);
    return static_cast<double>(raw);
}

DecodedImage greyFrame(const char* frame, const PixelLayout& l, const std::map<DicomTag, std::string>& values,
                       const DicomWindow& window) {
    const std::size_t count = std::size_t(l.columns) * l.rows;
    std::vector<double> stored(count);
    for (std::size_t i = 0; i < count; ++i) stored[i] = storedValue(frame, i, l);
    std::vector<double> fileWindow;
    const auto centre = firstNumber(values, kWindowCentre), width = firstNumber(values, kWindowWidth);
    if (centre && width) fileWindow = {*centre, *width};
    auto slope = firstNumber(values, kRescaleSlope);
    if (!slope || *slope == 0) slope = 1.0;
    const double intercept = firstNumber(values, kRescaleIntercept).value_or(0.0);
    DecodedImage out{1, static_cast<int>(l.rows), static_cast<int>(l.columns), {}};
    out.pixels = dicomDisplayValues(stored, *slope, intercept, window, fileWindow, l.monochrome1);
    return out;
}

// Colour: no VOI window applies (PS3.3 C.11.2); the luma Y = 0.299 R + 0.587 G + 0.114 B, or the
// Y sample of a YBR image, scaled by the largest stored value.
DecodedImage lumaFrame(const char* frame, const PixelLayout& l) {
    const std::size_t count = std::size_t(l.columns) * l.rows;
    const double maximum = std::ldexp(1.0, l.bitsStored) - 1;
    auto sample = [&](std::size_t pixel, std::size_t channel) {
        const std::size_t index = l.planar ? channel * count + pixel : pixel * 3 + channel;
        return storedValue(frame, index, l) / maximum;
    };
    DecodedImage out{1, static_cast<int>(l.rows), static_cast<int>(l.columns), std::vector<float>(count)};
    for (std::size_t p = 0; p < count; ++p) {
        const double y = l.ybr ? sample(p, 0) : 0.299 * sample(p, 0) + 0.587 * sample(p, 1) + 0.114 * sample(p, 2);
        out.pixels[p] = static_cast<float>(std::clamp(y, 0.0, 1.0));
    }
    return out;
}

// The bytes the file holds after the header of its (last) Pixel Data element whose declared length
// is `length`, explicit VR (tag, "OW"/"OB", 2 reserved bytes, 4 length bytes) or implicit (tag, 4
// length bytes); nullopt when no such header is found.
std::optional<std::uint64_t> bytesAfterPixelHeader(const std::string& bytes, std::uint32_t length) {
    char lengthBytes[4];
    std::memcpy(lengthBytes, &length, 4);  // little endian, as the syntaxes read here
    const std::string tag("\xe0\x7f\x10\x00", 4);
    const std::string explicitOw = tag + "OW" + std::string(2, '\0') + std::string(lengthBytes, 4);
    const std::string explicitOb = tag + "OB" + std::string(2, '\0') + std::string(lengthBytes, 4);
    const std::string implicit = tag + std::string(lengthBytes, 4);
    for (const auto* header : {&explicitOw, &explicitOb, &implicit}) {
        const auto at = bytes.rfind(*header);
        if (at != std::string::npos) return bytes.size() - (at + header->size());
    }
    return std::nullopt;
}

// A truncated uncompressed file: GDCM reads what is there and pads the rest; refuse it instead.
Status checkStoredLength(const std::string& bytes, const gdcm::File& file, const gdcm::Image& image,
                         std::uint64_t expected) {
    if (image.GetTransferSyntax().IsEncapsulated()) return std::nullopt;  // the codec judges its stream
    const gdcm::Tag pixelData(kPixelData.group, kPixelData.element);
    const gdcm::DataSet& dataSet = file.GetDataSet();
    const gdcm::ByteValue* value =
        dataSet.FindDataElement(pixelData) ? dataSet.GetDataElement(pixelData).GetByteValue() : nullptr;
    const std::uint64_t declared = value ? static_cast<std::uint64_t>(value->GetLength()) : 0;
    const auto held = value ? bytesAfterPixelHeader(bytes, value->GetLength()) : std::nullopt;
    if (declared < expected || (held && *held < expected))
        return Error{"its pixel data holds " + std::to_string(held ? std::min(*held, declared) : declared) +
                     " bytes but its header declares " + std::to_string(expected) + " (a truncated file?)"};
    return std::nullopt;
}

// The pixels of a file `reader` has read (an ImageReader: one parse gives the tags and the image).
Status readPixels(const std::string& bytes, const gdcm::ImageReader& reader, const DicomReadRules& rules,
                  DicomInstance& out) {
    const gdcm::Image& image = reader.GetImage();
    auto layout = layoutOf(image, rules);
    if (!layout) return layout.error();
    const std::uint64_t expected = layout->frameBytes() * layout->frames;
    if (image.GetBufferLength() != expected)
        return Error{"its decoded pixel data would be " + std::to_string(image.GetBufferLength()) +
                     " bytes, but its header declares " + std::to_string(expected)};
    if (auto shortData = checkStoredLength(bytes, reader.GetFile(), image, expected)) return shortData;
    std::vector<char> buffer(expected);
    if (!image.GetBuffer(buffer.data()))
        return Error{"its pixel data in transfer syntax " + transferSyntaxName(image.GetTransferSyntax()) +
                     " cannot be decoded (damaged, or a compression GDCM does not decode)"};
    const bool colour = layout->samples == 3;
    for (unsigned f = 0; f < layout->frames; ++f) {
        const char* frame = buffer.data() + f * layout->frameBytes();
        out.frames.push_back(colour ? lumaFrame(frame, *layout) : greyFrame(frame, *layout, out.values, rules.window));
    }
    return std::nullopt;
}

// Every ReferencedFileID (0004,1500) in the items of the DirectoryRecordSequence (0004,1220).
std::vector<std::string> referencedFiles(const gdcm::DataSet& dataSet) {
    std::vector<std::string> files;
    const gdcm::Tag records(0x0004, 0x1220), fileId(0x0004, 0x1500);
    if (!dataSet.FindDataElement(records)) return files;
    const auto sequence = dataSet.GetDataElement(records).GetValueAsSQ();
    if (!sequence) return files;
    for (gdcm::SequenceOfItems::SizeType i = 1; i <= sequence->GetNumberOfItems(); ++i) {
        const gdcm::DataSet& item = sequence->GetItem(i).GetNestedDataSet();
        if (!item.FindDataElement(fileId) || item.GetDataElement(fileId).IsEmpty()) continue;
        const gdcm::ByteValue* value = item.GetDataElement(fileId).GetByteValue();
        if (!value) continue;
        std::string path = trimmedValue(std::string(value->GetPointer(), value->GetLength()));
        std::replace(path.begin(), path.end(), '\\', '/');
        if (!path.empty()) files.push_back(path);
    }
    return files;
}

}  // namespace

Result<std::vector<std::string>> dicomDirFilesInProcess(const std::string& bytes) {
    silenceGdcm();
    if (auto damaged = checkFileMetaGroup(bytes)) return *damaged;
    try {
        std::istringstream stream(bytes);
        gdcm::Reader reader;
        reader.SetStream(stream);
        if (!reader.Read()) return Error{"it is not a readable DICOMDIR (damaged, truncated or another format)"};
        auto files = referencedFiles(reader.GetFile().GetDataSet());
        if (files.empty()) return Error{"it is a DICOMDIR that references no files"};
        return files;
    } catch (...) {
        return Error{"it is not a readable DICOMDIR (the DICOM library stopped on damaged data)"};
    }
}

Result<DicomTag> parseDicomTag(const std::string& text) {
    unsigned group = 0, element = 0;
    char tail = 0;
    if (text.size() == 9 && std::sscanf(text.c_str(), "%4x,%4x%c", &group, &element, &tail) == 2)
        return DicomTag{static_cast<std::uint16_t>(group), static_cast<std::uint16_t>(element)};
    gdcm::Tag tag;
    gdcm::Global::GetInstance().GetDicts().GetPublicDict().GetDictEntryByKeyword(text.c_str(), tag);
    if (text.empty() || tag == gdcm::Tag(0xffff, 0xffff))
        return Error{"'" + text + "' is not a DICOM tag, expected a keyword such as PatientID or gggg,eeee in hex"};
    return DicomTag{tag.GetGroup(), tag.GetElement()};
}

std::string dicomTagText(const DicomTag& tag) {
    char text[16];
    std::snprintf(text, sizeof text, "(%04X,%04X)", tag.group, tag.element);
    return text;
}

std::string dicomTagLabel(const DicomTag& tag) {
    const gdcm::Dict& dict = gdcm::Global::GetInstance().GetDicts().GetPublicDict();
    const char* keyword = dict.GetDictEntry(gdcm::Tag(tag.group, tag.element)).GetKeyword();
    return keyword && *keyword ? std::string(keyword) + " " + dicomTagText(tag) : dicomTagText(tag);
}

bool looksLikeDicomFile(const std::string& prefix) {
    return prefix.size() >= 132 && prefix.compare(128, 4, "DICM") == 0;
}

std::vector<float> dicomDisplayValues(const std::vector<double>& stored, double slope, double intercept,
                                      const DicomWindow& window, const std::vector<double>& fileWindow,
                                      bool monochrome1) {
    std::vector<double> x(stored.size());
    for (std::size_t i = 0; i < stored.size(); ++i) x[i] = slope * stored[i] + intercept;
    const bool useFile = window.from == DicomWindowFrom::File && fileWindow.size() == 2 && fileWindow[1] >= 1;
    const bool fixed = window.from == DicomWindowFrom::Fixed || useFile;
    const double c = useFile ? fileWindow[0] : window.centre, w = useFile ? fileWindow[1] : window.width;
    const auto [lo, hi] = x.empty()
                              ? std::pair{0.0, 0.0}
                              : std::pair{*std::min_element(x.begin(), x.end()), *std::max_element(x.begin(), x.end())};
    std::vector<float> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        double y = 0;
        if (fixed) {  // PS3.3 C.11.2.1.2.1, LINEAR, output range [0, 1]
            if (x[i] <= c - 0.5 - (w - 1) / 2)
                y = 0;
            else if (x[i] > c - 0.5 + (w - 1) / 2)
                y = 1;
            else
                y = (x[i] - (c - 0.5)) / (w - 1) + 0.5;
        } else {  // the image's own range
            y = hi > lo ? (x[i] - lo) / (hi - lo) : 0.0;
        }
        y = std::clamp(y, 0.0, 1.0);
        out[i] = static_cast<float>(monochrome1 ? 1.0 - y : y);
    }
    return out;
}

Result<DicomInstance> readDicomBytesInProcess(const std::string& bytes, const std::vector<DicomTag>& tags,
                                              const DicomReadRules& rules, bool withPixels) {
    silenceGdcm();
    if (auto damaged = checkFileMetaGroup(bytes)) return *damaged;
    try {
        // One parse: an ImageReader reads the data set and the image together. Only when it
        // fails is the file parsed again, as a plain data set, to say why.
        std::istringstream stream(bytes);
        gdcm::ImageReader imageReader;
        gdcm::Reader tagReader;
        gdcm::Reader& reader = withPixels ? static_cast<gdcm::Reader&>(imageReader) : tagReader;
        reader.SetStream(stream);
        const bool imageRead = reader.Read();
        if (!imageRead && withPixels) {
            std::istringstream again(bytes);
            tagReader.SetStream(again);
            if (!tagReader.Read())
                return Error{"it is not a readable DICOM file (damaged, truncated or another format)"};
        } else if (!imageRead) {
            return Error{"it is not a readable DICOM file (damaged, truncated or another format)"};
        }
        DicomInstance out;
        std::vector<DicomTag> asked = tags;
        for (const auto& t : {kRescaleIntercept, kRescaleSlope, kWindowCentre, kWindowWidth}) asked.push_back(t);
        readValues(imageRead ? reader.GetFile() : tagReader.GetFile(), asked, out);
        const bool hasPixels = std::find(out.present.begin(), out.present.end(), kPixelData) != out.present.end();
        if (!hasPixels) return Error{"it holds no pixel data (a report, a DICOMDIR or another non-image object)"};
        if (!withPixels) return out;
        if (!imageRead) return Error{"its pixel data cannot be read (damaged, or not an image GDCM knows)"};
        if (auto bad = readPixels(bytes, imageReader, rules, out)) return *bad;
        return out;
    } catch (const std::bad_alloc&) {
        return Error{"reading it ran out of memory (a damaged header declaring huge sizes?)"};
    } catch (...) {  // GDCM throws on some damaged data sets; its message may quote the header
        return Error{"it is not a readable DICOM file (the DICOM library stopped on damaged data)"};
    }
}

}  // namespace dpmix::data
