#include "engine/project/owner_key.h"

#include "engine/core/file_door.h"
#include "engine/data/sha256.h"

#include <sodium.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace dpmix::project {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSecretFile = "owner.key";
constexpr const char* kPublicFile = "owner.pub";
constexpr const char* kPublicTag = "dpmix-ed25519";
constexpr const char* kSecretTag = "dpmix-ed25519-secret";

void requireSodium() {
    static const int status = sodium_init();
    if (status < 0) throw std::runtime_error("libsodium could not be initialised");
}

std::string toHex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::optional<std::string> fromHex(const std::string& hex) {
    if (hex.size() % 2) return std::nullopt;
    std::string out;
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        auto nibble = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            return -1;
        };
        const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
    }
    return out;
}

// "TAG <hex>" (blank around it ignored) → the bytes, when the tag and length are right.
std::optional<std::string> taggedHex(const std::string& text, const std::string& tag, std::size_t bytes) {
    std::istringstream in(text);
    std::string first, second, extra;
    in >> first >> second;
    if (second.empty()) second.swap(first), first = tag;  // a bare hex string
    if (first != tag || (in >> extra)) return std::nullopt;
    auto decoded = fromHex(second);
    if (!decoded || decoded->size() != bytes) return std::nullopt;
    return decoded;
}

// A key file is one short line: anything larger (or a FIFO, a device) is not one.
constexpr std::uint64_t kMaxKeyFileBytes = 4096;

Result<std::string> readKeyFile(const fs::path& file, const std::string& what) {
    return files::readRegularFile(file.string(), what, kMaxKeyFileBytes);
}

}  // namespace

std::string OwnerPublicKey::hex() const { return toHex(bytes); }

std::string OwnerPublicKey::fingerprint() const {
    data::Sha256 h;
    h.update(bytes);
    const auto digest = h.digest();
    std::string out = "SHA256:";
    for (std::size_t i = 0; i < 16; ++i) {
        if (i && i % 2 == 0) out += ':';
        out += toHex(std::string(1, static_cast<char>(digest[i])));
    }
    return out;
}

std::string OwnerPublicKey::fileText() const { return std::string(kPublicTag) + " " + hex() + "\n"; }

Result<fs::path> ownerKeyDir() {
    if (const char* dir = std::getenv("DPMIX_KEY_DIR"); dir && *dir) return fs::path(dir);
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg && fs::path(xdg).is_absolute())
        return fs::path(xdg) / "dpmix";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".config" / "dpmix";
    return Error{"no folder for the owner's key: set DPMIX_KEY_DIR (or HOME)"};
}

Result<OwnerKeyPair> createOwnerKey(const fs::path& dir) {
    requireSodium();
    const std::string secretFile = (dir / kSecretFile).string(), publicFile = (dir / kPublicFile).string();
    if (files::exists(secretFile) || files::isSymlink(secretFile))
        return Error{secretFile +
                     " already exists: the owner has a key (dpmix keys show prints it); remove it first "
                     "to make a new one, which nobody trusts yet"};
    if (auto e = files::createPrivateDirectory(dir.string()))
        return Error{"cannot make the owner's key folder: " + e->message};
    unsigned char pk[crypto_sign_PUBLICKEYBYTES];
    unsigned char sk[crypto_sign_SECRETKEYBYTES];
    crypto_sign_keypair(pk, sk);
    OwnerKeyPair key{{std::string(reinterpret_cast<char*>(pk), sizeof pk)},
                     std::string(reinterpret_cast<char*>(sk), sizeof sk)};
    sodium_memzero(sk, sizeof sk);
    if (auto e = files::writeNewFile(secretFile, std::string(kSecretTag) + " " + toHex(key.secret) + "\n", 0600))
        return Error{"cannot write the owner's secret key: " + e->message};
    files::removeQuietly(publicFile);  // a public key without its secret one is stale
    if (auto e = files::writeNewFile(publicFile, key.publicKey.fileText(), 0644)) {
        files::removeQuietly(secretFile);  // a key pair is made whole or not at all
        return Error{"cannot write the owner's public key: " + e->message};
    }
    return key;
}

Result<OwnerKeyPair> loadOwnerKey(const fs::path& dir) {
    requireSodium();
    const std::string file = (dir / kSecretFile).string();
    auto kind = files::kindOf(file);
    if (!kind) return Error{kind.error().message + " (the owner's secret key)"};
    if (*kind == files::Kind::Missing) return Error{file + ": no owner key here (make one with `dpmix keys init`)"};
    auto mode = files::permissionBits(file, "the owner's secret key (a regular file)");
    if (!mode) return mode.error();
    if (*mode & 077)
        return Error{file + ": the secret key is readable by others (mode " + std::to_string((*mode >> 6) & 7) +
                     std::to_string((*mode >> 3) & 7) + std::to_string(*mode & 7) +
                     "); make it private with chmod 600, and consider it compromised if others could read it"};
    auto text = readKeyFile(file, "the owner's secret key");
    if (!text) return text.error();
    auto secret = taggedHex(*text, kSecretTag, crypto_sign_SECRETKEYBYTES);
    if (!secret) return Error{file + ": not a dpmix secret key (expected \"" + kSecretTag + " <128 hex digits>\")"};
    OwnerKeyPair key;
    key.secret = *secret;
    key.publicKey.bytes = secret->substr(crypto_sign_SEEDBYTES);  // libsodium keeps pk after the seed
    return key;
}

bool hasOwnerKey(const fs::path& dir) {
    const std::string secretFile = (dir / kSecretFile).string();
    return files::exists(secretFile) || files::isSymlink(secretFile);
}

Result<OwnerKeyPair> loadOrCreateOwnerKey(const fs::path& dir, bool* created) {
    if (created) *created = false;
    if (hasOwnerKey(dir)) return loadOwnerKey(dir);
    auto key = createOwnerKey(dir);
    if (key && created) *created = true;
    return key;
}

Result<OwnerPublicKey> parsePublicKey(const std::string& text) {
    auto bytes = taggedHex(text, kPublicTag, crypto_sign_PUBLICKEYBYTES);
    if (!bytes) return Error{std::string("not a dpmix public key (expected \"") + kPublicTag + " <64 hex digits>\")"};
    return OwnerPublicKey{*bytes};
}

Result<OwnerPublicKey> readPublicKeyFile(const fs::path& file) {
    auto text = readKeyFile(file, "a dpmix public key file (owner.pub)");
    if (!text) return text.error();
    auto key = parsePublicKey(*text);
    if (!key) return Error{file.string() + ": " + key.error().message};
    return key;
}

std::string signMessage(const OwnerKeyPair& key, const std::string& message) {
    requireSodium();
    unsigned char sig[crypto_sign_BYTES];
    crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                         reinterpret_cast<const unsigned char*>(key.secret.data()));
    return toHex(std::string(reinterpret_cast<char*>(sig), sizeof sig));
}

bool verifyMessage(const OwnerPublicKey& key, const std::string& message, const std::string& signatureHex) {
    requireSodium();
    const auto sig = fromHex(signatureHex);
    if (!sig || sig->size() != crypto_sign_BYTES || key.bytes.size() != crypto_sign_PUBLICKEYBYTES) return false;
    return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(sig->data()),
                                       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                                       reinterpret_cast<const unsigned char*>(key.bytes.data())) == 0;
}

}  // namespace dpmix::project
