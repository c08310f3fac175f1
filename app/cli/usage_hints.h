#pragma once
// What a newcomer's typing mistake needs after CLI11's own message ("A subcommand is required",
// "The following arguments were not expected: --stage"): the command or option they most likely
// meant, found by edit distance among the names the parser knows.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dpmix::cli {

/// Edit distance with adjacent swaps (optimal string alignment): "inspct" → "inspect" is 1.
std::size_t editDistance(const std::string& a, const std::string& b);

/// The names in `names` closest to `typed` that are close enough to be a typo (at most 1 edit for
/// names up to 4 characters, 2 up to 8, 3 beyond), all at the same distance; when none is, the
/// names `typed` is the start of.
std::vector<std::string> closestNames(const std::string& typed, const std::vector<std::string>& names);

/// The one name in `names` closest to `typed`, when close enough to be a typo (at most 1 edit for
/// names up to 4 characters, 2 up to 8, 3 beyond) or when `typed` is the start of exactly that one
/// name; none when nothing is that close or two names are equally close.
std::optional<std::string> closestName(const std::string& typed, const std::vector<std::string>& names);

/// One line naming the command or option `args` (argv without the program name) most likely
/// meant — "'inspct' is not a dpmix command: did you mean 'inspect'?", "'--stage' is not an option
/// of 'dpmix run': did you mean '--stages'?" — or empty when no typo is recognised.
std::string usageHint(CLI::App& app, const std::vector<std::string>& args);

}  // namespace dpmix::cli
