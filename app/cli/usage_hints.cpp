#include "app/cli/usage_hints.h"

#include <algorithm>
#include <numeric>

namespace dpmix::cli {
namespace {

// The commands `dpmix --help` lists: a hidden one (no group, e.g. `rank`, which `dpmix run --ranks`
// starts) is never offered as the command a typo meant.
std::vector<std::string> subcommandNames(CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (!sub->get_group().empty()) names.push_back(sub->get_name());
    return names;
}

CLI::App* subcommandNamed(CLI::App& app, const std::string& name) {
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == name) return sub;
    return nullptr;
}

// The long option names of `app` and of its parents (an option of `dpmix` itself, such as
// --threads, is accepted after a command too), with their dashes.
std::vector<std::string> longOptions(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* a = &app; a; a = a->get_parent())
        for (const CLI::Option* o : a->get_options())
            for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    return names;
}

// "dpmix run", "dpmix experiment k-scaling".
std::string commandPath(const CLI::App& app) {
    std::string path = app.get_name();
    for (const CLI::App* a = app.get_parent(); a; a = a->get_parent()) path = a->get_name() + " " + path;
    return path;
}

// An option of `app` (or its parents) that takes a value: the next word is that value, not a command.
bool takesValue(const CLI::App& app, const std::string& word) {
    for (const CLI::App* a = &app; a; a = a->get_parent())
        for (const CLI::Option* o : a->get_options())
            if (o->check_name(word)) return o->get_type_size_max() > 0;
    return false;
}

// The option `typed` most likely meant: the closest long name, where several equally close names
// of one option ("--epsilon,--epsilons") count as that option, named by its first long name.
std::optional<std::string> closestOption(const CLI::App& app, const std::string& typed) {
    const auto candidates = closestNames(typed, longOptions(app));
    std::optional<std::string> option;
    for (const auto& candidate : candidates) {
        const CLI::Option* owner = nullptr;
        for (const CLI::App* a = &app; a && !owner; a = a->get_parent())
            for (const CLI::Option* o : a->get_options())
                if (o->check_name(candidate)) owner = o;
        if (!owner || owner->get_lnames().empty()) return std::nullopt;
        const std::string first = "--" + owner->get_lnames().front();
        if (option && *option != first) return std::nullopt;  // two options equally close: no guess
        option = first;
    }
    return option;
}

}  // namespace

std::size_t editDistance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

std::vector<std::string> closestNames(const std::string& typed, const std::vector<std::string>& names) {
    if (typed.empty()) return {};
    std::vector<std::string> best;
    std::size_t bestDistance = 0;
    for (const auto& name : names) {
        const std::size_t distance = editDistance(typed, name);
        const std::size_t allowed = name.size() <= 4 ? 1 : name.size() <= 8 ? 2 : 3;
        if (distance == 0 || distance > allowed) continue;
        if (!best.empty() && distance > bestDistance) continue;
        if (best.empty() || distance < bestDistance) {
            best.clear();
            bestDistance = distance;
        }
        if (std::find(best.begin(), best.end(), name) == best.end()) best.push_back(name);
    }
    if (!best.empty()) return best;
    for (const auto& name : names)  // no typo that close: the names `typed` is the start of
        if (name.size() > typed.size() && name.compare(0, typed.size(), typed) == 0 &&
            std::find(best.begin(), best.end(), name) == best.end())
            best.push_back(name);
    return best;
}

std::optional<std::string> closestName(const std::string& typed, const std::vector<std::string>& names) {
    const auto candidates = closestNames(typed, names);
    if (candidates.size() != 1) return std::nullopt;
    return candidates.front();
}

std::string usageHint(CLI::App& app, const std::vector<std::string>& args) {
    CLI::App* current = &app;
    bool commandSeen = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& word = args[i];
        if (word == "--") break;
        if (word.rfind("--", 0) == 0) {
            const std::string name = word.substr(0, word.find('='));
            if (current->get_parent() == nullptr && !commandSeen && name == "--help") return {};
            const auto known = longOptions(*current);
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                const auto guess = closestOption(*current, name);
                if (!guess) return {};
                return "'" + name + "' is not an option of '" + commandPath(*current) + "': did you mean '" + *guess +
                       "'?";
            }
            if (word.find('=') == std::string::npos && takesValue(*current, name)) ++i;  // skip its value
            continue;
        }
        if (word.rfind('-', 0) == 0) continue;  // a short flag or a negative number: CLI11's message says it
        if (CLI::App* sub = subcommandNamed(*current, word)) {
            current = sub;
            commandSeen = true;
            continue;
        }
        const auto commands = subcommandNames(*current);
        if (commands.empty()) continue;  // a positional argument of the command
        // A word where a command is expected (none chosen yet, or the command has its own).
        if (current == &app || current->get_require_subcommand_min() > 0) {
            const auto guess = closestName(word, commands);
            const std::string where =
                current == &app ? "a dpmix command" : "a command of '" + commandPath(*current) + "'";
            if (!guess)
                return "'" + word + "' is not " + where + " (`" + commandPath(*current) + " --help` lists them)";
            return "'" + word + "' is not " + where + ": did you mean '" + *guess + "'?";
        }
    }
    return {};
}

}  // namespace dpmix::cli
