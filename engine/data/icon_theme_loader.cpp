// "icon-theme" loader: the PNG icons of a freedesktop icon theme (<size>x<size>/<context>/<name>.png,
// e.g. /usr/share/icons/Adwaita), grey, labelled by their context (actions, devices, places, ...):
// a public image source unrelated to the study's task, which a good mixture should learn to leave out.
#include "engine/data/image_file.h"
#include "engine/data/image_loaders.h"
#include "engine/data/loader_options.h"
#include "engine/data/text_loaders.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>

namespace dpmix::data {
namespace {

struct Icon {
    std::string path, context;
};

// "sizes": the <n>x<n> folders to read (default 32, 48 and 64 pixels).
Result<std::vector<std::string>> sizeFolders(const SourceSpec& spec) {
    std::vector<std::string> folders;
    const std::string text = optionOr(spec, "sizes", "32,48,64");
    for (const auto& item : splitList(text)) {
        int pixels = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), pixels);
        if (ec != std::errc() || end != item.data() + item.size() || pixels < 1 || pixels > 4096)
            return Error{sourceContext(spec) + "option 'sizes' = '" + text + "' is not valid: '" + item +
                         "' is not a size, expected a comma list of icon sizes in pixels (e.g. 32,48,64)"};
        folders.push_back(std::to_string(pixels) + "x" + std::to_string(pixels));
    }
    if (folders.empty())
        return Error{sourceContext(spec) + "option 'sizes' is empty, expected a comma list of icon sizes in pixels"};
    return folders;
}

// Symbolic icons are one-colour outlines drawn to be recoloured ("go-home-symbolic.png", and
// Adwaita's pre-rendered "go-home-symbolic.symbolic.png"): not the theme's pictures.
bool isSymbolic(const std::string& fileName) {
    const std::string stem = fileName.substr(0, fileName.size() - 4);  // without ".png"
    const auto endsWith = [&](const std::string& suffix) {
        return stem.size() >= suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return endsWith("-symbolic") || endsWith(".symbolic");
}

// The PNG icons of the size folders, sorted by path; SVGs, other files and symbolic icons skipped.
Result<std::vector<Icon>> findIcons(const SourceSpec& spec, const std::vector<std::string>& sizes) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(spec.path, ec))
        return Error{sourceContext(spec) + "'" + spec.path +
                     "' is not a folder, expected an icon theme folder (<size>x<size>/<context>/<name>.png)"};
    std::vector<Icon> icons;
    for (const auto& size : sizes) {
        const fs::path sizeFolder = fs::path(spec.path) / size;
        if (!fs::is_directory(sizeFolder, ec)) continue;  // a theme need not have every size
        for (const auto& context : fs::directory_iterator(sizeFolder, ec)) {
            if (!context.is_directory()) continue;
            for (const auto& file : fs::directory_iterator(context.path(), ec)) {
                const std::string name = file.path().filename().string();
                if (file.is_regular_file() && file.path().extension() == ".png" && !isSymbolic(name))
                    icons.push_back({file.path().string(), context.path().filename().string()});
            }
        }
        if (ec) return Error{sourceContext(spec) + "cannot list folder '" + sizeFolder.string() + "': " + ec.message()};
    }
    std::sort(icons.begin(), icons.end(), [](const Icon& a, const Icon& b) { return a.path < b.path; });
    return icons;
}

// The classes: the "contexts" option (each must hold icons), or every context found, sorted.
Result<std::vector<std::string>> contextClasses(const SourceSpec& spec, const std::vector<Icon>& icons,
                                                const std::string& sizes) {
    std::set<std::string> found;
    for (const auto& icon : icons) found.insert(icon.context);
    if (!spec.options.count("contexts")) return std::vector<std::string>(found.begin(), found.end());
    const std::vector<std::string> named = splitList(spec.options.at("contexts"));
    if (named.empty()) return Error{sourceContext(spec) + "option 'contexts' is empty, expected a comma list"};
    for (std::size_t i = 0; i < named.size(); ++i) {
        if (std::find(named.begin(), named.begin() + static_cast<std::ptrdiff_t>(i), named[i]) !=
            named.begin() + static_cast<std::ptrdiff_t>(i))
            return Error{sourceContext(spec) + "option 'contexts' names '" + named[i] + "' twice"};
        if (!found.count(named[i]))
            return Error{sourceContext(spec) + "option 'contexts' names '" + named[i] + "', but '" + spec.path +
                         "' has no PNG icons in that context at sizes " + sizes +
                         " (contexts found: " + std::to_string(found.size()) + ")"};
    }
    return named;
}

// One icon as grey on black: stb's grey (77R + 150G + 29B) / 256 times alpha, so a transparent
// background is black and the icon's shape shows; then fitted to the model resolution.
Result<std::vector<float>> readIcon(const std::string& path, int height, int width) {
    auto greyAlpha = decodeImageFile(path, 2);
    if (!greyAlpha) return greyAlpha.error();
    const std::size_t plane = static_cast<std::size_t>(greyAlpha->height) * greyAlpha->width;
    DecodedImage grey{1, greyAlpha->height, greyAlpha->width, std::vector<float>(plane)};
    for (std::size_t p = 0; p < plane; ++p) grey.pixels[p] = greyAlpha->pixels[p] * greyAlpha->pixels[plane + p];
    return resizeImage(grey, height, width).pixels;
}

}  // namespace

Result<ImageDataset> loadIconThemeSource(const SourceSpec& spec, const LoadControl& control) {
    if (auto unknown = checkKnownOptions(spec, {"sizes", "contexts", "size", "tasks"})) return *unknown;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    auto size = sizeOption(spec, "28");
    if (!size) return size.error();
    auto sizes = sizeFolders(spec);
    if (!sizes) return sizes.error();
    auto icons = findIcons(spec, *sizes);
    if (!icons) return icons.error();
    const std::string sizeList = optionOr(spec, "sizes", "32,48,64");
    if (icons->empty())
        return Error{sourceContext(spec) + "folder '" + spec.path + "' holds no PNG icons at sizes " + sizeList +
                     " (expected <size>x<size>/<context>/<name>.png; symbolic icons and SVGs are not read)"};
    auto classes = contextClasses(spec, *icons, sizeList);
    if (!classes) return classes.error();

    ImageDataset out;
    out.height = size->first;
    out.width = size->second;
    std::vector<int> classIds;
    for (std::size_t i = 0; i < icons->size() && classIds.size() < *limit; ++i) {
        loadStep(spec, control, i, icons->size());
        const auto& icon = (*icons)[i];
        const auto it = std::find(classes->begin(), classes->end(), icon.context);
        if (it == classes->end()) continue;  // a context the "contexts" option leaves out
        auto pixels = readIcon(icon.path, out.height, out.width);
        if (!pixels) return Error{sourceContext(spec) + pixels.error().message};
        out.pixels.insert(out.pixels.end(), pixels->begin(), pixels->end());
        classIds.push_back(static_cast<int>(it - classes->begin()));
    }
    loadStep(spec, control, icons->size(), icons->size());
    if (auto failed = attachNamedClassTargets(spec, classIds, *classes, out)) return *failed;
    return out;
}

}  // namespace dpmix::data
