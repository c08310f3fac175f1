// The keyed hash that replaces a DICOM source's patient ids, and its key file.
#include "engine/data/dicom_pseudonym.h"

#include "engine/core/file_door.h"
#include "engine/data/loader_options.h"
#include "engine/data/sha256.h"

#include <sys/random.h>

#include <array>
#include <cstdlib>
#include <filesystem>

namespace dpmix::data {
namespace {

const char* const kKeyFileName = "dicom-pseudonym.key";

std::string hexOf(const std::uint8_t* bytes, std::size_t count) {
    static const char* digits = "0123456789abcdef";
    std::string hex;
    for (std::size_t i = 0; i < count; ++i) {
        hex += digits[bytes[i] >> 4];
        hex += digits[bytes[i] & 15];
    }
    return hex;
}

// The owner's key folder, as engine/project/owner_key.h finds it (the data layer cannot depend on
// the project layer).
Result<std::string> keyFolder() {
    if (const char* dir = std::getenv("DPMIX_KEY_DIR"); dir && *dir) return std::string(dir);
    if (const char* config = std::getenv("XDG_CONFIG_HOME"); config && *config)
        return (std::filesystem::path(config) / "dpmix").string();
    if (const char* home = std::getenv("HOME"); home && *home)
        return (std::filesystem::path(home) / ".config" / "dpmix").string();
    return Error{"no folder for the DICOM pseudonym key: set DPMIX_KEY_DIR (or HOME), or option pseudonym_key"};
}

Status createKeyFile(const std::string& folder, const std::string& file) {
    std::array<std::uint8_t, 32> secret{};
    if (getrandom(secret.data(), secret.size(), 0) != static_cast<ssize_t>(secret.size()))
        return Error{"cannot draw a DICOM pseudonym key: the OS gave no random bytes"};
    if (auto bad = files::createPrivateDirectory(folder)) return bad;
    auto written = files::writeNewFile(file, hexOf(secret.data(), secret.size()) + "\n", 0600);
    if (written && files::exists(file)) return std::nullopt;  // another process made it first
    return written;
}

Result<std::string> readKeyFile(const SourceSpec& spec, const std::string& file) {
    auto mode = files::permissionBits(file, "a DICOM pseudonym key");
    if (!mode) return Error{sourceContext(spec) + mode.error().message};
    if (*mode & 077)
        return Error{sourceContext(spec) + "the DICOM pseudonym key '" + file +
                     "' can be read by others than its owner: make it private (chmod 600)"};
    auto text = files::readRegularFile(file, "a DICOM pseudonym key", 4096);
    if (!text) return Error{sourceContext(spec) + text.error().message};
    const std::string key = trim(*text);
    if (key.size() < 32)
        return Error{sourceContext(spec) + "the DICOM pseudonym key '" + file +
                     "' is shorter than 32 characters: a key must be long and random"};
    return key;
}

}  // namespace

Result<std::string> dicomPseudonymKey(const SourceSpec& spec) {
    if (spec.options.count("pseudonym_key"))
        return readKeyFile(spec, resolveNextTo(spec, spec.options.at("pseudonym_key")));
    auto folder = keyFolder();
    if (!folder) return Error{sourceContext(spec) + folder.error().message};
    const std::string file = (std::filesystem::path(*folder) / kKeyFileName).string();
    if (!files::exists(file))
        if (auto bad = createKeyFile(*folder, file)) return Error{sourceContext(spec) + bad->message};
    return readKeyFile(spec, file);
}

std::string hmacSha256Hex(const std::string& key, const std::string& message) {
    std::array<std::uint8_t, 64> block{};
    if (key.size() > block.size()) {
        Sha256 h;
        h.update(key);
        const auto d = h.digest();
        std::copy(d.begin(), d.end(), block.begin());
    } else {
        std::copy(key.begin(), key.end(), block.begin());
    }
    std::array<std::uint8_t, 64> inner{}, outer{};
    for (std::size_t i = 0; i < block.size(); ++i) {
        inner[i] = block[i] ^ 0x36;
        outer[i] = block[i] ^ 0x5c;
    }
    Sha256 innerHash;
    innerHash.update(inner.data(), inner.size());
    innerHash.update(message);
    const auto innerDigest = innerHash.digest();
    Sha256 outerHash;
    outerHash.update(outer.data(), outer.size());
    outerHash.update(innerDigest.data(), innerDigest.size());
    return outerHash.hexDigest();
}

std::string dicomPseudonym(const std::string& key, const std::string& id) {
    return "p" + hmacSha256Hex(key, id).substr(0, 32);
}

}  // namespace dpmix::data
