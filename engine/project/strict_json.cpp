#include "engine/project/strict_json.h"

#include <set>
#include <vector>

namespace dpmix::project {
namespace {

constexpr int kMaxSpecDepth = 64;

std::string printableNul(const std::string& text) {
    std::string out;
    for (char c : text.substr(0, 80)) out += c == '\0' ? std::string("\\u0000") : std::string(1, c);
    return out;
}

}  // namespace

nlohmann::json parseStrictJson(const std::string& text) {
    if (text.find('\0') != std::string::npos)
        throw StrictJsonError("a NUL byte at offset " + std::to_string(text.find('\0')) + ": expected JSON text only");
    std::vector<std::set<std::string>> keys;  // one set per open object
    auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (depth > kMaxSpecDepth)
            throw StrictJsonError("nested more than " + std::to_string(kMaxSpecDepth) + " levels deep: not a spec");
        switch (event) {
            case nlohmann::json::parse_event_t::object_start: keys.emplace_back(); break;
            case nlohmann::json::parse_event_t::object_end:
                if (!keys.empty()) keys.pop_back();
                break;
            case nlohmann::json::parse_event_t::value:
                // An escaped NUL (\u0000) would cut a name, path or option where the C library reads it.
                if (parsed.is_string() && parsed.get_ref<const std::string&>().find('\0') != std::string::npos)
                    throw StrictJsonError(
                        "the string \"" + printableNul(parsed.get_ref<const std::string&>()) +
                        "\" holds a NUL character (\\u0000): names, paths and options are text without it");
                break;
            case nlohmann::json::parse_event_t::key:
                if (parsed.get_ref<const std::string&>().find('\0') != std::string::npos)
                    throw StrictJsonError("the key \"" + printableNul(parsed.get_ref<const std::string&>()) +
                                          "\" holds a NUL character (\\u0000)");
                if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
                    throw StrictJsonError(
                        "key \"" + parsed.get<std::string>() +
                        "\" appears twice in one object: expected each key once (the last would silently win)");
                break;
            default: break;
        }
        return true;
    };
    return nlohmann::json::parse(text, callback);
}

}  // namespace dpmix::project
