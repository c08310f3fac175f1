#pragma once
// Reading SourceSpec::options: typed look-ups whose errors name the source, option and value.
#include "engine/core/result.h"
#include "engine/data/source_spec.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace dpmix::data {

/// "source 'name' (loader idx): " — the prefix of every option error.
std::string sourceContext(const SourceSpec& spec);

std::string optionOr(const SourceSpec& spec, const std::string& key, const std::string& fallback);

/// "limit": maximum number of examples (default: no limit = SIZE_MAX).
Result<std::size_t> limitOption(const SourceSpec& spec);

/// A positive integer option; errors say which option and what was expected.
Result<long long> integerOption(const SourceSpec& spec, const std::string& key, long long fallback, long long minimum,
                                long long maximum);

/// "size": the model resolution "H" or "HxW" (sides 1..4096) as {height, width}; `fallback` when absent.
Result<std::pair<int, int>> sizeOption(const SourceSpec& spec, const std::string& fallback);

/// Rejects options the loader does not know (catches typos such as "lables"). "limit" is always
/// known, and "shift" for an image loader (image_shift.h).
/// `prefixes` lists families such as "uncertain." that accept any suffix.
Status checkKnownOptions(const SourceSpec& spec, const std::vector<std::string>& known,
                         const std::vector<std::string>& prefixes = {});

/// Splits "a,b , c" into {"a","b","c"} (trimmed; empty items dropped).
std::vector<std::string> splitList(const std::string& text, char separator = ',');
std::string trim(const std::string& text);

/// Resolves a path given in an option relative to the folder of the source's main path.
std::string resolveNextTo(const SourceSpec& spec, const std::string& path);

}  // namespace dpmix::data
