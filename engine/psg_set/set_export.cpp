#include "engine/psg_set/set_export.h"

#include "engine/core/joined_list.h"

// Static: the writer stays private to this file (the test fixtures compile their own copy).
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>

namespace dpmix::psg {
namespace fs = std::filesystem;
namespace {

std::uint8_t toByte(float x) {
    const float clamped = std::clamp(std::isfinite(x) ? x : 0.0f, 0.0f, 1.0f);
    return static_cast<std::uint8_t>(std::lround(clamped * 255.0f));
}

void putBigEndian(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

Status writeFile(const fs::path& file, const std::string& bytes) {
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return Error{file.string() + ": cannot write the file (disk full or no permission?)"};
    return std::nullopt;
}

// The image's pixels as bytes in the order PNG wants: rows of pixels, channels interleaved.
std::string interleavedBytes(const PrivateSet& set, std::int64_t image) {
    const std::size_t plane = static_cast<std::size_t>(set.height) * set.width;
    const std::size_t base = static_cast<std::size_t>(image) * plane * set.channels;
    std::string out(plane * set.channels, '\0');
    for (std::size_t p = 0; p < plane; ++p)
        for (int c = 0; c < set.channels; ++c)
            out[p * set.channels + c] = static_cast<char>(toByte(set.pixels[base + c * plane + p]));
    return out;
}

void appendToString(void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

Status writeIdx(const PrivateSet& set, const fs::path& dir, SetExportResult& result) {
    std::string images, labels;
    putBigEndian(images, 0x00000803);
    putBigEndian(images, static_cast<std::uint32_t>(set.count()));
    putBigEndian(images, static_cast<std::uint32_t>(set.height));
    putBigEndian(images, static_cast<std::uint32_t>(set.width));
    for (float x : set.pixels) images.push_back(static_cast<char>(toByte(x)));
    putBigEndian(labels, 0x00000801);
    putBigEndian(labels, static_cast<std::uint32_t>(set.count()));
    for (int l : set.labels) labels.push_back(static_cast<char>(l));
    if (auto e = writeFile(dir / "images-idx3-ubyte", images)) return e;
    if (auto e = writeFile(dir / "labels-idx1-ubyte", labels)) return e;
    result.files = {"images-idx3-ubyte", "labels-idx1-ubyte"};
    return std::nullopt;
}

Status writePngCsv(const PrivateSet& set, const std::vector<std::string>& classNames, const fs::path& dir,
                   SetExportResult& result) {
    std::string csv = "Path";
    for (const auto& c : classNames) csv += "," + c;
    csv += "\n";
    for (std::int64_t i = 0; i < set.count(); ++i) {
        const std::string name = "image-" + std::to_string(i) + ".png";
        const std::string pixels = interleavedBytes(set, i);
        std::string png;
        if (!stbi_write_png_to_func(appendToString, &png, set.width, set.height, set.channels, pixels.data(),
                                    set.width * set.channels))
            return Error{"cannot encode " + name + " as PNG"};
        if (auto e = writeFile(dir / name, png)) return e;
        result.files.push_back(name);
        csv += name;
        for (int c = 0; c < set.classes; ++c) csv += set.labels[static_cast<std::size_t>(i)] == c ? ",1" : ",0";
        csv += "\n";
    }
    if (auto e = writeFile(dir / "manifest.csv", csv)) return e;
    result.files.push_back("manifest.csv");
    return std::nullopt;
}

}  // namespace

bool parseSetExportFormat(const std::string& text, SetExportFormat& out) {
    if (text == "idx")
        out = SetExportFormat::Idx;
    else if (text == "png-csv")
        out = SetExportFormat::PngCsv;
    else
        return false;
    return true;
}

Result<SetExportResult> exportPrivateSet(const PrivateSet& set, const std::vector<std::string>& classNames,
                                         SetExportFormat format, const fs::path& folder,
                                         const std::string& sourceName) {
    if (set.count() <= 0 || set.channels < 1 || set.height < 1 || set.width < 1 ||
        static_cast<std::int64_t>(set.pixels.size()) != set.count() * set.channels * set.height * set.width ||
        static_cast<std::int64_t>(set.labels.size()) != set.count())
        return Error{"the private set's sizes disagree: nothing to export"};
    if (static_cast<int>(classNames.size()) != set.classes)
        return Error{std::to_string(classNames.size()) + " class names for a set of " + std::to_string(set.classes) +
                     " classes"};
    for (const auto& c : classNames)
        if (c.empty() || c.find_first_of(",\"\n\r") != std::string::npos)
            return Error{"class name '" + c +
                         "' is empty or holds a comma, quote or line break: the loaders' "
                         "options list classes separated by commas"};
    if (format == SetExportFormat::Idx && set.channels != 1)
        return Error{"format idx holds grey images; this set has " + std::to_string(set.channels) +
                     " channels: use --format png-csv"};
    if (format == SetExportFormat::Idx && set.classes > 256)
        return Error{"format idx stores a label in one byte; this set has " + std::to_string(set.classes) + " classes"};
    std::error_code ec;
    if (fs::exists(folder, ec) && !(fs::is_directory(folder, ec) && fs::is_empty(folder, ec)))
        return Error{folder.string() + ": exists and is not an empty folder: expected a new folder for the set"};
    const fs::path absolute = fs::absolute(folder, ec);
    if (ec) return Error{folder.string() + ": cannot resolve the folder: " + ec.message()};
    const fs::path parent = absolute.parent_path();
    if (!fs::is_directory(parent, ec)) return Error{parent.string() + ": the folder to export into does not exist"};
    const fs::path temp = parent / ("." + absolute.filename().string() + ".export-" + std::to_string(::getpid()));
    fs::remove_all(temp, ec);
    if (!fs::create_directory(temp, ec)) return Error{temp.string() + ": cannot create the folder: " + ec.message()};

    SetExportResult result;
    result.folder = absolute;
    Status written =
        format == SetExportFormat::Idx ? writeIdx(set, temp, result) : writePngCsv(set, classNames, temp, result);
    nlohmann::ordered_json source;
    source["name"] = sourceName;
    if (format == SetExportFormat::Idx) {
        source["loader"] = "idx";
        source["path"] = (absolute / "images-idx3-ubyte").string();
        source["options"] = {{"labels", "labels-idx1-ubyte"}, {"classes", core::joinedList(classNames, ",")}};
    } else {
        source["loader"] = "csv-images";
        source["path"] = (absolute / "manifest.csv").string();
        source["options"] = {{"labels", core::joinedList(classNames, ",")},
                             {"size", std::to_string(set.height) + "x" + std::to_string(set.width)},
                             {"channels", std::to_string(set.channels)}};
    }
    result.sourceJson = source.dump(2);
    if (!written) written = writeFile(temp / "source.json", result.sourceJson + "\n");
    if (!written) {
        result.files.push_back("source.json");
        fs::remove(absolute, ec);  // an empty folder the user made: replaced by the complete one
        fs::rename(temp, absolute, ec);
        if (ec) written = Error{absolute.string() + ": cannot move the exported set into place: " + ec.message()};
    }
    if (written) {
        fs::remove_all(temp, ec);
        return *written;
    }
    return result;
}

}  // namespace dpmix::psg
