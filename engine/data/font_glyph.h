#pragma once
// Drawing characters of a TrueType/OpenType font (stb_truetype) as MNIST draws its digits: white
// on black, antialiased, scaled to fit a box inside a margin and centred by the glyph's bounding
// box. The "glyphs" loader's drawing, apart from its options and files.
#include <optional>
#include <string>
#include <vector>

namespace dpmix::data {

/// Face 0 of a font file, one image per code point: height×width floats in [0,1], or an empty
/// image when the font has no glyph for it (glyph index 0) or the glyph draws nothing (a space).
/// nullopt when the bytes are not a font stb_truetype can read (checked before it reads them:
/// stb_truetype itself trusts the offsets in the file).
std::optional<std::vector<std::vector<float>>> renderGlyphs(const std::string& fontBytes,
                                                            const std::vector<char32_t>& codepoints, int height,
                                                            int width);

}  // namespace dpmix::data
