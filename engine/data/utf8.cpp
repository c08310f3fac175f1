#include "engine/data/utf8.h"

namespace dpmix::data {
namespace {

// Length of the valid sequence starting at text[i], or 0 if it is invalid.
std::size_t validSequenceLength(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80) return 1;
    std::size_t length = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF)
        length = 2;
    else if (b0 == 0xE0) {
        length = 3;
        lo = 0xA0;
    }  // no overlongs
    else if (b0 >= 0xE1 && b0 <= 0xEC)
        length = 3;
    else if (b0 == 0xED) {
        length = 3;
        hi = 0x9F;
    }  // no surrogates
    else if (b0 >= 0xEE && b0 <= 0xEF)
        length = 3;
    else if (b0 == 0xF0) {
        length = 4;
        lo = 0x90;
    } else if (b0 >= 0xF1 && b0 <= 0xF3)
        length = 4;
    else if (b0 == 0xF4) {
        length = 4;
        hi = 0x8F;
    }  // <= U+10FFFF
    else
        return 0;
    if (i + length > text.size()) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    return length;
}

}  // namespace

bool isValidUtf8(std::string_view text, std::size_t* badOffset) {
    std::size_t i = 0;
    while (i < text.size()) {
        // Fast path over ASCII runs.
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t length = validSequenceLength(text, i);
        if (length == 0) {
            if (badOffset) *badOffset = i;
            return false;
        }
        i += length;
    }
    return true;
}

std::string replaceInvalidUtf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t length = validSequenceLength(text, i);
        if (length == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
}

}  // namespace dpmix::data
