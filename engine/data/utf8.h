#pragma once
// UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
#include <cstddef>
#include <string>
#include <string_view>

namespace dpmix::data {

/// True when `text` is valid UTF-8; otherwise false and *badOffset = offset of the first bad byte.
bool isValidUtf8(std::string_view text, std::size_t* badOffset = nullptr);

/// Replaces each invalid sequence by U+FFFD (for the encoding_errors=replace option).
std::string replaceInvalidUtf8(std::string_view text);

}  // namespace dpmix::data
