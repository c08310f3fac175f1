// The one translation unit that compiles stb_truetype (header-only, libstb-dev).
#include "engine/data/font_glyph.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#define STB_TRUETYPE_IMPLEMENTATION
#include <stb/stb_truetype.h>

namespace dpmix::data {
namespace {

std::uint32_t bigEndian(const std::string& bytes, std::size_t at, int count) {
    std::uint32_t value = 0;
    for (int i = 0; i < count; ++i) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
    return value;
}

// The offset of face 0, or -1 unless its table directory and every table it lists lie inside the
// file: stb_truetype reads wherever the offsets point, so a truncated or junk file must stop here.
int checkedFaceOffset(const std::string& bytes) {
    if (bytes.size() < 16) return -1;  // a font header, or a collection's header with one offset
    const int offset = stbtt_GetFontOffsetForIndex(reinterpret_cast<const unsigned char*>(bytes.data()), 0);
    if (offset < 0 || static_cast<std::size_t>(offset) + 12 > bytes.size()) return -1;
    const std::size_t tables = bigEndian(bytes, offset + 4, 2);
    if (offset + 12 + 16 * tables > bytes.size()) return -1;
    for (std::size_t t = 0; t < tables; ++t) {
        const std::size_t record = offset + 12 + 16 * t;
        if (std::uint64_t{bigEndian(bytes, record + 8, 4)} + bigEndian(bytes, record + 12, 4) > bytes.size()) return -1;
    }
    return offset;
}

// One glyph, scaled to fit a box of 20/28 of each side (MNIST's 20×20 digits in 28×28) and placed
// so that the centre of its bounding box is the centre of the image, to a fraction of a pixel.
std::vector<float> renderGlyph(const stbtt_fontinfo& font, int glyph, int height, int width) {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    if (stbtt_IsGlyphEmpty(&font, glyph) || !stbtt_GetGlyphBox(&font, glyph, &x0, &y0, &x1, &y1) || x1 <= x0 ||
        y1 <= y0)
        return {};
    const double boxHeight = height * 20.0 / 28.0, boxWidth = width * 20.0 / 28.0;
    const float scale = static_cast<float>(std::min(boxWidth / (x1 - x0), boxHeight / (y1 - y0)));
    // Font units point up, image rows down: font (x, y) lands at (x·scale + dx, −y·scale + dy).
    const double dx = width / 2.0 - (x0 + x1) * scale / 2.0, dy = height / 2.0 + (y0 + y1) * scale / 2.0;
    const int wholeX = static_cast<int>(std::floor(dx)), wholeY = static_cast<int>(std::floor(dy));
    const auto shiftX = static_cast<float>(dx - wholeX), shiftY = static_cast<float>(dy - wholeY);
    int bx0 = 0, by0 = 0, bx1 = 0, by1 = 0;
    stbtt_GetGlyphBitmapBoxSubpixel(&font, glyph, scale, scale, shiftX, shiftY, &bx0, &by0, &bx1, &by1);
    const int bw = bx1 - bx0, bh = by1 - by0;
    if (bw <= 0 || bh <= 0) return {};
    std::vector<unsigned char> bitmap(static_cast<std::size_t>(bw) * bh);
    stbtt_MakeGlyphBitmapSubpixel(&font, bitmap.data(), bw, bh, bw, scale, scale, shiftX, shiftY, glyph);
    std::vector<float> image(static_cast<std::size_t>(height) * width, 0.0f);
    for (int y = 0; y < bh; ++y)
        for (int x = 0; x < bw; ++x) {
            const int row = wholeY + by0 + y, column = wholeX + bx0 + x;
            if (row >= 0 && row < height && column >= 0 && column < width)
                image[static_cast<std::size_t>(row) * width + column] = bitmap[y * bw + x] / 255.0f;
        }
    return image;
}

}  // namespace

std::optional<std::vector<std::vector<float>>> renderGlyphs(const std::string& fontBytes,
                                                            const std::vector<char32_t>& codepoints, int height,
                                                            int width) {
    const int offset = checkedFaceOffset(fontBytes);
    stbtt_fontinfo font;
    if (offset < 0 || !stbtt_InitFont(&font, reinterpret_cast<const unsigned char*>(fontBytes.data()), offset))
        return std::nullopt;
    std::vector<std::vector<float>> images;
    for (const char32_t c : codepoints) {
        const int glyph = stbtt_FindGlyphIndex(&font, static_cast<int>(c));
        images.push_back(glyph == 0 ? std::vector<float>{} : renderGlyph(font, glyph, height, width));
    }
    return images;
}

}  // namespace dpmix::data
