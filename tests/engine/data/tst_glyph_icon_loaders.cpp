// The "glyphs" loader (letters drawn from fonts, stb_truetype) and the "icon-theme" loader
// (a freedesktop icon theme's PNGs): the public sources unrelated to the study's task. Fixtures are
// generated: a tiny icon theme of stb_image_write PNGs, and the system's DejaVu Sans
// (fonts-dejavu-core, which scripts/setup.sh installs) beside a junk .ttf.
#include "data_fixtures.h"
#include "engine/data/source_loader.h"

#include "tests/support/unit_test.h"

#include <algorithm>
#include <filesystem>
#include <random>

using namespace dpmix::data;
namespace fx = dpmix::data::fixtures;
using dpmix::test_support::contains;

namespace {

const std::string kDejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

std::string messageOf(const dpmix::Result<ImageDataset>& d) { return d.ok() ? "" : d.error().message; }

const float* image(const ImageDataset& d, std::size_t i) { return d.pixels.data() + i * d.imageSize(); }

int litPixels(const ImageDataset& d, std::size_t i) {
    return static_cast<int>(std::count_if(image(d, i), image(d, i) + d.imageSize(), [](float v) { return v > 0.5f; }));
}

// The intensity-weighted mean position (x, y) of image i.
std::pair<double, double> centreOfMass(const ImageDataset& d, std::size_t i) {
    double sum = 0, x = 0, y = 0;
    for (int row = 0; row < d.height; ++row)
        for (int column = 0; column < d.width; ++column) {
            const double v = image(d, i)[row * d.width + column];
            sum += v;
            x += v * (column + 0.5);
            y += v * (row + 0.5);
        }
    return {x / sum, y / sum};
}

// The centre of the box around every pixel the glyph touches (> 0).
std::pair<double, double> inkBoxCentre(const ImageDataset& d, std::size_t i) {
    int left = d.width, right = -1, top = d.height, bottom = -1;
    for (int row = 0; row < d.height; ++row)
        for (int column = 0; column < d.width; ++column)
            if (image(d, i)[row * d.width + column] > 0) {
                left = std::min(left, column);
                right = std::max(right, column);
                top = std::min(top, row);
                bottom = std::max(bottom, row);
            }
    return {(left + right + 1) / 2.0, (top + bottom + 1) / 2.0};
}

}  // namespace

class TestGlyphIconLoaders : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string path(const std::string& name) { return dir_.filePath(name); }

    dpmix::Result<ImageDataset> icons(std::map<std::string, std::string> options = {}) {
        return loadImageSource({"icons", "icon-theme", path("theme"), std::move(options)});
    }
    dpmix::Result<ImageDataset> glyphs(std::map<std::string, std::string> options = {},
                                       std::vector<std::string>* messages = nullptr) {
        LoadControl control;
        control.progress = [messages](const dpmix::ProgressEvent& e) {
            if (messages && !e.message.empty()) messages->push_back(e.message);
        };
        return loadImageSource({"letters", "glyphs", path("fonts"), std::move(options)}, control);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // The theme: a flat grey 32×32 action; a 48×48 RGBA device whose left half is white but
        // fully transparent and whose right half is (200, 100, 50) at alpha 128; a 16×16 emblem
        // (a size not read by default); symbolic icons, an SVG and index.theme, never read.
        fx::writePng(path("theme/32x32/actions/a.png"), 32, 32, 1, std::vector<std::uint8_t>(32 * 32, 200));
        std::vector<std::uint8_t> rgba(48 * 48 * 4);
        for (int y = 0; y < 48; ++y)
            for (int x = 0; x < 48; ++x) {
                const std::vector<std::uint8_t> pixel =
                    x < 24 ? std::vector<std::uint8_t>{255, 255, 255, 0} : std::vector<std::uint8_t>{200, 100, 50, 128};
                std::copy(pixel.begin(), pixel.end(), rgba.begin() + (y * 48 + x) * 4);
            }
        fx::writePng(path("theme/48x48/devices/b.png"), 48, 48, 4, rgba);
        fx::writePng(path("theme/16x16/emblems/d.png"), 16, 16, 1, std::vector<std::uint8_t>(256, 255));
        fx::writePng(path("theme/32x32/actions/go-home-symbolic.png"), 32, 32, 1, std::vector<std::uint8_t>(1024, 9));
        fx::writePng(path("theme/48x48/devices/phone-symbolic.symbolic.png"), 48, 48, 1,
                     std::vector<std::uint8_t>(48 * 48, 9));
        fx::writeFile(path("theme/32x32/places/folder.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
        fx::writeFile(path("theme/index.theme"), "[Icon Theme]\nName=Tiny\n");
        fx::writeFile(path("empty-theme/32x32/actions/readme.txt"), "no icons here");

        // The fonts: DejaVu Sans in a sub-folder, a junk "font" of random bytes, one that starts
        // like a TrueType file but whose table directory is junk, and a file that is not a font.
        std::mt19937 random(49);
        std::string junk(4096, '\0');
        for (auto& c : junk) c = static_cast<char>(random() & 0xff);
        fx::writeFile(path("fonts/broken.ttf"), junk);
        fx::writeFile(path("fonts/truncated.otf"), std::string("\x00\x01\x00\x00", 4) + junk.substr(0, 200));
        fx::writeFile(path("fonts/notes.txt"), "not a font");
        fx::writeFile(path("no-fonts/broken.ttf"), junk);
        std::filesystem::create_directories(path("empty"));
        if (std::filesystem::exists(kDejaVuSans)) {
            std::filesystem::create_directories(path("fonts/sans"));
            std::filesystem::copy_file(kDejaVuSans, path("fonts/sans/DejaVuSans.ttf"));
        }
    }

    void iconThemeReadsPngsByContext() {
        auto d = icons({{"size", "48"}});
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->size(), std::size_t(2));  // the symbolic ones, the SVG and the 16×16 emblem are not read
        QCOMPARE(d->channels, 1);
        QCOMPARE(d->height, 48);
        QCOMPARE(d->width, 48);
        QCOMPARE(d->labelNames, (std::vector<std::string>{"actions", "devices"}));
        QCOMPARE(d->labels, (std::vector<float>{1, 0, 0, 1}));  // sorted paths: 32x32/actions/a.png first
        // a.png: flat 200, resized 32 → 48, stays 200/255.
        DPMIX_COMPARE_NEAR(image(*d, 0)[0], 200.0f / 255.0f, 1e-5);
        DPMIX_COMPARE_NEAR(image(*d, 0)[47 * 48 + 47], 200.0f / 255.0f, 1e-5);
        // b.png, left: white but transparent -> black (read without alpha it would be 1).
        QCOMPARE(image(*d, 1)[10 * 48 + 3], 0.0f);
        // b.png, right: stb's grey (77·200 + 150·100 + 29·50) >> 8 = 124, times alpha 128/255.
        const float grey = static_cast<float>((77 * 200 + 150 * 100 + 29 * 50) >> 8) / 255.0f;
        DPMIX_COMPARE_NEAR(image(*d, 1)[10 * 48 + 40], grey * 128.0f / 255.0f, 1e-5);
    }

    void iconThemeOptions() {
        auto fitted = icons();  // default size 28
        QVERIFY2(fitted.ok(), messageOf(fitted).c_str());
        QCOMPARE(fitted->height, 28);
        QCOMPARE(fitted->width, 28);
        DPMIX_COMPARE_NEAR(image(*fitted, 0)[14 * 28 + 14], 200.0f / 255.0f, 1e-5);
        auto emblems = icons({{"sizes", "16"}});
        QVERIFY2(emblems.ok(), messageOf(emblems).c_str());
        QCOMPARE(emblems->labelNames, (std::vector<std::string>{"emblems"}));
        QCOMPARE(emblems->size(), std::size_t(1));
        auto devices = icons({{"contexts", "devices"}});
        QVERIFY2(devices.ok(), messageOf(devices).c_str());
        QCOMPARE(devices->labelNames, (std::vector<std::string>{"devices"}));
        QCOMPARE(devices->size(), std::size_t(1));
        auto tasks = icons({{"tasks", "ui=actions|devices"}});
        QVERIFY2(tasks.ok(), messageOf(tasks).c_str());
        QCOMPARE(tasks->labelNames, (std::vector<std::string>{"ui"}));
        QCOMPARE(tasks->labels, (std::vector<float>{1, 1}));
        auto first = icons({{"limit", "1"}});
        QVERIFY2(first.ok(), messageOf(first).c_str());
        QCOMPARE(first->size(), std::size_t(1));
        auto again = icons();
        QVERIFY(again.ok() && again->pixels == fitted->pixels);  // deterministic
    }

    void iconThemeErrors() {
        auto empty = loadImageSource({"icons", "icon-theme", path("empty-theme"), {}});
        QVERIFY(!empty.ok());
        QVERIFY2(contains(empty.error().message, "folder '" + path("empty-theme") + "' holds no PNG icons"),
                 empty.error().message.c_str());
        auto unknown = icons({{"context", "actions"}});
        QVERIFY(!unknown.ok() && contains(unknown.error().message, "unknown option 'context'"));
        auto absent = icons({{"contexts", "emotes"}});
        QVERIFY(!absent.ok() && contains(absent.error().message, "option 'contexts' names 'emotes'"));
        auto badSizes = icons({{"sizes", "32,big"}});
        QVERIFY(!badSizes.ok() && contains(badSizes.error().message, "'big' is not a size"));
        auto notFolder = loadImageSource({"icons", "icon-theme", path("theme/index.theme"), {}});
        QVERIFY(!notFolder.ok() && contains(notFolder.error().message, "is not a folder"));
    }

    void glyphsOnePerCharacterSkippingJunk() {
        if (!std::filesystem::exists(kDejaVuSans)) QSKIP("DejaVuSans.ttf is missing: install fonts-dejavu-core");
        std::vector<std::string> messages;
        auto d = glyphs({}, &messages);
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->size(), std::size_t(10));  // one font x A..J; broken.ttf and truncated.otf skipped
        QCOMPARE(d->channels, 1);
        QCOMPARE(d->height, 28);
        QCOMPARE(d->width, 28);
        QCOMPARE(d->labelNames, (std::vector<std::string>{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"}));
        for (std::size_t i = 0; i < 10; ++i)
            for (std::size_t c = 0; c < 10; ++c) QCOMPARE(d->labels[i * 10 + c], i == c ? 1.0f : 0.0f);
        QVERIFY(!messages.empty());
        QVERIFY2(contains(messages.back(), "1 font(s) drawn; skipped 2 font file(s) stb_truetype cannot read"),
                 messages.back().c_str());
        for (std::size_t i = 0; i < 10; ++i) {
            QVERIFY2(litPixels(*d, i) > 20, dpmix::test_support::str("image ", i, " is nearly blank").c_str());
            QVERIFY(*std::max_element(image(*d, i), image(*d, i) + d->imageSize()) > 0.99f);  // white strokes
            QCOMPARE(image(*d, i)[0], 0.0f);                                                  // on black
            const auto [x, y] = inkBoxCentre(*d, i);  // centred by its bounding box
            QVERIFY2(std::abs(x - 14) <= 1 && std::abs(y - 14) <= 1,
                     dpmix::test_support::str("image ", i, ": ink box centred at ", x, ", ", y).c_str());
        }
        auto again = glyphs();
        QVERIFY(again.ok() && again->pixels == d->pixels);  // deterministic
    }

    void glyphsAreCentredAndSized() {
        if (!std::filesystem::exists(kDejaVuSans)) QSKIP("DejaVuSans.ttf is missing: install fonts-dejavu-core");
        auto d = glyphs({{"characters", "IWHOX"}});
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->labelNames, (std::vector<std::string>{"I", "W", "H", "O", "X"}));
        QVERIFY2(litPixels(*d, 0) < litPixels(*d, 1),
                 dpmix::test_support::str("I lights ", litPixels(*d, 0), ", W ", litPixels(*d, 1)).c_str());
        for (std::size_t i = 0; i < d->size(); ++i) {  // symmetric letters: the mass is in the middle too
            const auto [x, y] = centreOfMass(*d, i);
            QVERIFY2(std::abs(x - 14) <= 2 && std::abs(y - 14) <= 2,
                     dpmix::test_support::str(d->labelNames[i], ": centre of mass ", x, ", ", y).c_str());
        }
        auto rectangular = glyphs({{"characters", "O"}, {"size", "40x20"}});
        QVERIFY2(rectangular.ok(), messageOf(rectangular).c_str());
        QCOMPARE(rectangular->height, 40);
        QCOMPARE(rectangular->width, 20);
        auto three = glyphs({{"limit", "3"}});
        QVERIFY(three.ok());
        QCOMPARE(three->size(), std::size_t(3));
        QCOMPARE(three->labels, (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                                                    0, 1, 0, 0, 0, 0, 0, 0, 0, 0,  //
                                                    0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
    }

    void glyphsMissingInAFontAreSkipped() {
        if (!std::filesystem::exists(kDejaVuSans)) QSKIP("DejaVuSans.ttf is missing: install fonts-dejavu-core");
        std::vector<std::string> messages;
        auto d = glyphs({{"characters", "A\xE4\xB8\xAD"}, {"tasks", "letter=A"}}, &messages);  // U+4E2D: no CJK
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->size(), std::size_t(1));
        QCOMPARE(d->labelNames, (std::vector<std::string>{"letter"}));
        QVERIFY2(contains(messages.back(), "and 1 missing glyph(s)"), messages.back().c_str());
    }

    void glyphsErrors() {
        auto empty = loadImageSource({"letters", "glyphs", path("empty"), {}});
        QVERIFY(!empty.ok());
        QVERIFY2(contains(empty.error().message, "folder '" + path("empty") + "' holds no usable font: 0 .ttf/.otf"),
                 empty.error().message.c_str());
        auto junkOnly = loadImageSource({"letters", "glyphs", path("no-fonts"), {}});
        QVERIFY(!junkOnly.ok());
        QVERIFY2(contains(junkOnly.error().message, "1 that stb_truetype cannot read"),
                 junkOnly.error().message.c_str());
        auto unknown = glyphs({{"letters", "ABC"}});
        QVERIFY(!unknown.ok());
        QVERIFY2(contains(unknown.error().message,
                          "source 'letters' (loader glyphs): unknown option 'letters' (known options: limit"),
                 unknown.error().message.c_str());
        auto twice = glyphs({{"characters", "ABA"}});
        QVERIFY(!twice.ok() && contains(twice.error().message, "names 'A' twice"));
        auto space = glyphs({{"characters", "A B"}});
        QVERIFY(!space.ok() && contains(space.error().message, "space or control character"));
        auto size = glyphs({{"size", "0"}});
        QVERIFY(!size.ok() && contains(size.error().message, "option 'size' = '0' is not valid"));
    }
};

QTEST_APPLESS_MAIN(TestGlyphIconLoaders)
#include "tst_glyph_icon_loaders.moc"
