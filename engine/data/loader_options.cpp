#include "engine/data/loader_options.h"

#include "engine/data/source_loader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>

namespace dpmix::data {

std::string sourceContext(const SourceSpec& spec) {
    return "source '" + spec.name + "' (loader " + spec.loader + "): ";
}

std::string optionOr(const SourceSpec& spec, const std::string& key, const std::string& fallback) {
    const auto it = spec.options.find(key);
    return it == spec.options.end() ? fallback : it->second;
}

Result<long long> integerOption(const SourceSpec& spec, const std::string& key, long long fallback, long long minimum,
                                long long maximum) {
    const auto it = spec.options.find(key);
    if (it == spec.options.end()) return fallback;
    const std::string text = trim(it->second);
    long long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || value < minimum || value > maximum)
        return Error{sourceContext(spec) + "option '" + key + "' = '" + it->second +
                     "' is not valid, expected an integer in [" + std::to_string(minimum) + ", " +
                     std::to_string(maximum) + "]"};
    return value;
}

Result<std::size_t> limitOption(const SourceSpec& spec) {
    auto limit = integerOption(spec, "limit", -1, 1, std::numeric_limits<long long>::max());
    if (!limit) return limit.error();
    if (*limit < 0) return std::numeric_limits<std::size_t>::max();
    return static_cast<std::size_t>(*limit);
}

Result<std::pair<int, int>> sizeOption(const SourceSpec& spec, const std::string& fallback) {
    const std::string text = trim(optionOr(spec, "size", fallback));
    const auto x = text.find_first_of("xX");
    const std::string hText = x == std::string::npos ? text : text.substr(0, x);
    const std::string wText = x == std::string::npos ? text : text.substr(x + 1);
    int h = 0, w = 0;
    const auto rh = std::from_chars(hText.data(), hText.data() + hText.size(), h);
    const auto rw = std::from_chars(wText.data(), wText.data() + wText.size(), w);
    if (rh.ec != std::errc() || rw.ec != std::errc() || rh.ptr != hText.data() + hText.size() ||
        rw.ptr != wText.data() + wText.size() || h < 1 || w < 1 || h > 4096 || w > 4096)
        return Error{sourceContext(spec) + "option 'size' = '" + text +
                     "' is not valid, expected H or HxW with sides in 1..4096"};
    return std::pair{h, w};
}

Status checkKnownOptions(const SourceSpec& spec, const std::vector<std::string>& known,
                         const std::vector<std::string>& prefixes) {
    // Every loader keeps "limit"; every image loader also "shift", which loadImageSource applies.
    const bool images = isImageLoader(spec.loader);
    for (const auto& option : spec.options) {
        const std::string& key = option.first;  // a plain reference: clang 14 cannot capture a structured binding
        if (key == "limit" || (images && key == "shift")) continue;
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        const bool prefixed = std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) {
            return key.size() > p.size() && key.compare(0, p.size(), p) == 0;
        });
        if (prefixed) continue;
        std::string list = images ? "limit, shift" : "limit";
        for (const auto& k : known) list += ", " + k;
        for (const auto& p : prefixes) list += ", " + p + "<label>";
        return Error{sourceContext(spec) + "unknown option '" + key + "' (known options: " + list + ")"};
    }
    return std::nullopt;
}

std::string trim(const std::string& text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos) return {};
    const auto end = text.find_last_not_of(" \t\r\n");
    return text.substr(begin, end - begin + 1);
}

std::vector<std::string> splitList(const std::string& text, char separator) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto stop = std::min(text.find(separator, start), text.size());
        std::string item = trim(text.substr(start, stop - start));
        if (!item.empty()) items.push_back(std::move(item));
        start = stop + 1;
    }
    return items;
}

std::string resolveNextTo(const SourceSpec& spec, const std::string& path) {
    const std::filesystem::path p(path);
    if (p.is_absolute()) return path;
    return (std::filesystem::path(spec.path).parent_path() / p).string();
}

}  // namespace dpmix::data
