#include "engine/project/file_signature.h"

#include "engine/data/sha256.h"
#include "engine/project/project_file.h"
#include "engine/project/seal.h"

namespace dpmix::project {
namespace {

bool hasSignaturesTable(Database& db) {
    Statement s(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'signatures'");
    return s.step() && s.integer(0) > 0;
}

// The release manifest's SHA-256, or "none" in a project.
std::string manifestHash(Database& db) {
    Statement exists(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'release'");
    if (!exists.step() || exists.integer(0) == 0) return "none";
    Statement s(db.handle(), "SELECT manifest_json FROM release ORDER BY id LIMIT 1");
    return s.step() ? data::sha256Hex(s.text(0)) : "none";
}

}  // namespace

std::string signedMessage(const std::string& sealHash, const std::string& manifestHash, const std::string& signedAt) {
    return "dpmix-signature/1\nseal " + sealHash + "\nmanifest " + manifestHash + "\nsigned-at " + signedAt + "\n";
}

void insertSignature(Database& db, const OwnerKeyPair& key) {
    if (!hasSignaturesTable(db)) throw SqliteError("the file predates signatures (schema 6): open it read-write once");
    const std::string seal = computeSealState(db).hash, manifest = manifestHash(db), at = utcTimestamp();
    Statement s(db.handle(), "INSERT INTO signatures(public_key, signed_at, seal_hash, manifest_hash, signature) "
                             "VALUES(?,?,?,?,?)");
    s.bind(1, key.publicKey.hex()).bind(2, at).bind(3, seal).bind(4, manifest);
    s.bind(5, signMessage(key, signedMessage(seal, manifest, at))).run();
}

std::vector<SignatureCheck> checkSignatures(Database& db) {
    std::vector<SignatureCheck> out;
    if (!hasSignaturesTable(db)) return out;
    const std::string sealNow = computeSealState(db).hash, manifestNow = manifestHash(db);
    Statement s(db.handle(), "SELECT public_key, signed_at, seal_hash, manifest_hash, signature FROM signatures ORDER BY id");
    while (s.step()) {
        SignatureCheck c;
        c.signedAt = s.text(1);
        auto key = parsePublicKey(s.text(0));
        if (key) {
            c.signer = *key;
            c.valid = verifyMessage(c.signer, signedMessage(s.text(2), s.text(3), c.signedAt), s.text(4));
        }
        c.current = s.text(2) == sealNow && s.text(3) == manifestNow;
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace dpmix::project
