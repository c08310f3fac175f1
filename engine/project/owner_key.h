#pragma once
// The data owner's signing key (Ed25519, libsodium): what makes a project or release file
// attributable. The hash chain and the seal are unkeyed — anyone who edits a file can recompute
// them — so only a signature by a key the reviewer received by another channel shows who made
// the file and that nobody changed it since (docs/PRIVACY.md, "Signed files").
//
// The key pair lives in one folder: owner.key (the secret key, mode 0600, in a 0700 folder) and
// owner.pub (the public key, one line "dpmix-ed25519 <64 hex digits>", for reviewers). The
// folder is $DPMIX_KEY_DIR, else $XDG_CONFIG_HOME/dpmix, else ~/.config/dpmix.
#include "engine/core/result.h"

#include <filesystem>
#include <string>

namespace dpmix::project {

struct OwnerPublicKey {
    std::string bytes;  // 32 bytes
    std::string hex() const;
    /// What people compare: "SHA256:" and the first 16 bytes of SHA-256 of the key, in hex groups.
    std::string fingerprint() const;
    /// The public key file's one line.
    std::string fileText() const;
};

struct OwnerKeyPair {
    OwnerPublicKey publicKey;
    std::string secret;  // 64 bytes (libsodium's seed + public key)
};

/// The key folder ($DPMIX_KEY_DIR, $XDG_CONFIG_HOME/dpmix, ~/.config/dpmix); an Error without HOME.
Result<std::filesystem::path> ownerKeyDir();

/// Creates a new key pair in `dir` (the folder made 0700 when missing); refused when one is there.
Result<OwnerKeyPair> createOwnerKey(const std::filesystem::path& dir);
/// Reads the key pair of `dir`; refused when the secret key is readable by others than its owner.
Result<OwnerKeyPair> loadOwnerKey(const std::filesystem::path& dir);
/// True when `dir` holds a secret key file (whatever state it is in: loadOwnerKey judges it).
bool hasOwnerKey(const std::filesystem::path& dir);
/// loadOwnerKey, or createOwnerKey when `dir` holds none (`created` says which).
Result<OwnerKeyPair> loadOrCreateOwnerKey(const std::filesystem::path& dir, bool* created = nullptr);

/// A public key as written in owner.pub (or its bare 64 hex digits).
Result<OwnerPublicKey> parsePublicKey(const std::string& text);
Result<OwnerPublicKey> readPublicKeyFile(const std::filesystem::path& file);

/// A detached Ed25519 signature of `message`, in hex.
std::string signMessage(const OwnerKeyPair& key, const std::string& message);
bool verifyMessage(const OwnerPublicKey& key, const std::string& message, const std::string& signatureHex);

}  // namespace dpmix::project
