// "glyphs" loader: letters drawn from a folder of TrueType/OpenType fonts, one white-on-black image
// per (font, character), as notMNIST draws A..J: a public image source unrelated to the study's
// task, which a good mixture should learn to leave out.
#include "engine/data/file_bytes.h"
#include "engine/data/font_glyph.h"
#include "engine/data/image_loaders.h"
#include "engine/data/loader_options.h"
#include "engine/data/text_loaders.h"
#include "engine/data/utf8.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace dpmix::data {
namespace {

struct Character {
    std::string text;  // its UTF-8 bytes: the class name
    char32_t codepoint = 0;
};

// The "characters" option (default the notMNIST letters): distinct visible characters, in order.
Result<std::vector<Character>> characterOption(const SourceSpec& spec) {
    const std::string text = optionOr(spec, "characters", "ABCDEFGHIJ");
    if (text.empty() || !isValidUtf8(text))
        return Error{sourceContext(spec) + "option 'characters' = '" + text +
                     "' is not valid, expected one or more characters in UTF-8"};
    std::vector<Character> characters;
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        char32_t codepoint = length == 1 ? lead : lead & (0xFF >> (length + 1));
        for (std::size_t k = 1; k < length; ++k) codepoint = codepoint << 6 | (text[i + k] & 0x3F);
        Character c{text.substr(i, length), codepoint};
        i += length;
        if (codepoint <= U' ' || codepoint == 0x7F)
            return Error{sourceContext(spec) +
                         "option 'characters' holds a space or control character, expected "
                         "visible characters only (each one is a class)"};
        if (std::any_of(characters.begin(), characters.end(), [&](const Character& d) { return d.text == c.text; }))
            return Error{sourceContext(spec) + "option 'characters' names '" + c.text +
                         "' twice, expected each character once (each one is a class)"};
        characters.push_back(std::move(c));
    }
    return characters;
}

bool isFontFile(const std::filesystem::path& path) {
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".ttf" || extension == ".otf";
}

// Every .ttf/.otf file under the folder, sorted by path (the order of the images).
Result<std::vector<std::string>> fontFiles(const SourceSpec& spec) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(spec.path, ec))
        return Error{sourceContext(spec) + "'" + spec.path + "' is not a folder, expected a folder of .ttf/.otf fonts"};
    std::vector<std::string> files;
    for (auto it = fs::recursive_directory_iterator(spec.path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file() && isFontFile(it->path())) files.push_back(it->path().string());
    if (ec) return Error{sourceContext(spec) + "cannot list folder '" + spec.path + "': " + ec.message()};
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

Result<ImageDataset> loadGlyphsSource(const SourceSpec& spec, const LoadControl& control) {
    if (auto unknown = checkKnownOptions(spec, {"characters", "size", "tasks"})) return *unknown;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    auto size = sizeOption(spec, "28");
    if (!size) return size.error();
    auto characters = characterOption(spec);
    if (!characters) return characters.error();
    auto files = fontFiles(spec);
    if (!files) return files.error();
    std::vector<char32_t> codepoints;
    for (const auto& c : *characters) codepoints.push_back(c.codepoint);

    ImageDataset out;
    out.height = size->first;
    out.width = size->second;
    std::vector<int> classIds;
    std::size_t unreadable = 0, missing = 0, usable = 0;
    for (std::size_t f = 0; f < files->size() && classIds.size() < *limit; ++f) {
        loadStep(spec, control, f, files->size(), 16);
        auto bytes = readFileRaw((*files)[f]);
        if (!bytes) return Error{sourceContext(spec) + bytes.error().message};
        const auto images = renderGlyphs(*bytes, codepoints, out.height, out.width);
        if (!images) {  // not a font stb_truetype can read: skipped, counted
            ++unreadable;
            continue;
        }
        const std::size_t before = classIds.size();
        for (std::size_t c = 0; c < images->size() && classIds.size() < *limit; ++c) {
            if ((*images)[c].empty()) {
                ++missing;
                continue;
            }
            out.pixels.insert(out.pixels.end(), (*images)[c].begin(), (*images)[c].end());
            classIds.push_back(static_cast<int>(c));
        }
        if (classIds.size() > before) ++usable;
    }
    if (classIds.empty())
        return Error{sourceContext(spec) + "folder '" + spec.path +
                     "' holds no usable font: " + std::to_string(files->size()) + " .ttf/.otf file(s), " +
                     std::to_string(unreadable) + " that stb_truetype cannot read, none drawing any of '" +
                     optionOr(spec, "characters", "ABCDEFGHIJ") + "'"};
    report(control.progress,
           {"load " + spec.name, static_cast<long long>(files->size()), static_cast<long long>(files->size()),
            std::to_string(usable) + " font(s) drawn; skipped " + std::to_string(unreadable) +
                " font file(s) stb_truetype cannot read and " + std::to_string(missing) + " missing glyph(s)"});
    std::vector<std::string> classNames;
    for (const auto& c : *characters) classNames.push_back(c.text);
    if (auto failed = attachNamedClassTargets(spec, classIds, classNames, out)) return *failed;
    return out;
}

}  // namespace dpmix::data
