#pragma once
// The test vocabulary of the engine's tests, free of Qt's types: the tests of engine/ are Qt Test
// executables in the full build and compile unchanged against the Qt-free harness of
// tests/support/headless/ in the headless build (-DDPMIX_WITH_GUI=OFF, docs/GPU.md). A test of
// the engine includes this header instead of <QtTest>, and uses std::string, TempDir and str()
// where a widget test would use QString, QTemporaryDir and QString::arg().
#ifdef DPMIX_HEADLESS_TESTS
#include "tests/support/headless/headless_test.h"
#else
#include <QtTest>

#include <string>
// QCOMPARE of two std::strings prints both values on failure, as it does for QStrings.
template <>
inline char* QTest::toString(const std::string& value) {
    return QTest::toPrettyCString(value.data(), static_cast<qsizetype>(value.size()));
}
#endif

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <unistd.h>

/// Verifies |actual − expected| < tolerance; on failure prints actual, expected, their difference
/// and the tolerance (QVERIFY(std::abs(a - b) < t) says only "false").
#define DPMIX_COMPARE_NEAR(actual, expected, tolerance)                                                         \
    do {                                                                                                        \
        const double dpmixActual_ = static_cast<double>(actual);                                                \
        const double dpmixExpected_ = static_cast<double>(expected);                                            \
        const double dpmixTolerance_ = static_cast<double>(tolerance);                                          \
        const double dpmixDiff_ = std::abs(dpmixActual_ - dpmixExpected_);                                      \
        QVERIFY2(dpmixDiff_ < dpmixTolerance_,                                                                  \
                 ::dpmix::test_support::str(#actual " = ", ::dpmix::test_support::Exact{dpmixActual_},          \
                                            ", " #expected " = ", ::dpmix::test_support::Exact{dpmixExpected_}, \
                                            ": difference ", dpmixDiff_, ", expected < ", dpmixTolerance_)      \
                     .c_str());                                                                                 \
    } while (false)

namespace dpmix::test_support {

/// A double printed with all 17 significant digits by str().
struct Exact {
    double value;
};
inline std::ostream& operator<<(std::ostream& os, Exact e) {
    const auto old = os.precision(17);
    os << e.value;
    os.precision(old);
    return os;
}

/// The parts written one after the other, as a failure message: str("seed ", s, ": ε ", eps).
/// Doubles get 6 significant digits (wrap one in Exact for all 17).
template <typename... Parts>
std::string str(const Parts&... parts) {
    std::ostringstream os;
    (os << ... << parts);
    return os.str();
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }
inline bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}
inline bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// A fresh directory under the system's temporary folder, removed with everything in it when the
/// object goes (QTemporaryDir's role, without Qt).
class TempDir {
public:
    TempDir() {
        std::error_code ec;
        std::filesystem::path base = std::filesystem::temp_directory_path(ec);
        if (ec) base = "/tmp";
        std::string pattern = (base / "dpmix-test-XXXXXX").string();
        if (::mkdtemp(pattern.data())) path_ = pattern;
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        if (path_.empty()) return;
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    bool isValid() const { return !path_.empty(); }
    const std::string& path() const { return path_; }
    std::string filePath(std::string_view name) const { return path_ + "/" + std::string(name); }

private:
    std::string path_;
};

/// The whole content of a file; empty when it cannot be read.
inline std::string readTextFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

/// Writes `content` to `path` (replacing it); false when it cannot be written.
inline bool writeTextFile(const std::string& path, std::string_view content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    return static_cast<bool>(out);
}

/// The rows of a CSV file as the program writes it (RFC 4180: quoted cells, doubled quotes,
/// commas and newlines inside quotes); empty when the file cannot be read.
inline std::vector<std::vector<std::string>> readCsvRows(const std::string& path) {
    const std::string text = readTextFile(path);
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(std::move(cell));
            cell.clear();
        } else if (c == '\n') {
            row.push_back(std::move(cell));
            cell.clear();
            rows.push_back(std::move(row));
            row.clear();
        } else if (c != '\r') {
            cell += c;
        }
    }
    if (!cell.empty() || !row.empty()) {
        row.push_back(std::move(cell));
        rows.push_back(std::move(row));
    }
    return rows;
}

/// The value of an environment variable, or `fallback` when it is not set.
inline std::string environment(const char* name, std::string fallback = {}) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : fallback;
}

/// The build tree the test belongs to: DPMIX_TEST_BINARY_DIR (CTest sets it), else found from the
/// executable's place, <build>/bin/tests/. Not a compile-time path: then no object would name the
/// clone's folder, and a clone elsewhere reuses the objects through ccache (docs/DEVELOPING.md,
/// "Build speed").
inline std::string binaryDir() {
    if (const char* dir = std::getenv("DPMIX_TEST_BINARY_DIR")) return dir;
    std::error_code error;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::string(".") : exe.parent_path().parent_path().parent_path().string();
}

/// The source tree: DPMIX_TEST_SOURCE_DIR (CTest sets it), else the one binaryDir() was
/// configured from (CMAKE_HOME_DIRECTORY in its CMakeCache.txt).
inline std::string sourceDir() {
    if (const char* dir = std::getenv("DPMIX_TEST_SOURCE_DIR")) return dir;
    std::ifstream cache(binaryDir() + "/CMakeCache.txt");
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(cache, line);)
        if (line.rfind(key, 0) == 0) return line.substr(key.size());
    return ".";
}

/// An executable with deterministic tests and Monte-Carlo ones is registered twice
/// (dpmix_add_qtest(... STATISTICAL_PARTS)): as NAME under its labels, and as NAME_statistical
/// under the label `statistical`, with DPMIX_TEST_PART=statistical. Its init() slot calls this
/// with the names of its Monte-Carlo functions: true when the current function belongs to the
/// part being run (QSKIP it otherwise), so each function runs in exactly one of the two.
inline bool inThisTestPart(std::initializer_list<const char*> statisticalFunctions) {
    const char* part = std::getenv("DPMIX_TEST_PART");
    const bool statisticalRun = part && std::strcmp(part, "statistical") == 0;
    bool statistical = false;
    for (const char* f : statisticalFunctions)
        if (std::strcmp(f, QTest::currentTestFunction()) == 0) statistical = true;
    return statistical == statisticalRun || !part;  // run by hand (no part): everything runs
}

}  // namespace dpmix::test_support
