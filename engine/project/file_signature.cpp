#include "engine/project/file_signature.h"

#include "engine/data/sha256.h"
#include "engine/project/hash_chain.h"
#include "engine/project/project_file.h"
#include "engine/project/seal.h"

#include <cstdio>
#include <set>

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

// Tables a signature does not cover: itself, the seal (checked against the file on its own),
// the working settings (a draft a user may save after signing).
const std::set<std::string>& uncoveredTables() {
    static const std::set<std::string> names{"signatures", "seal", "working_settings"};
    return names;
}

}  // namespace

std::string signedMessage(const std::string& sealHash, const std::string& manifestHash, const std::string& contentHash,
                          const std::string& signedAt) {
    return "dpmix-signature/1\nseal " + sealHash + "\nmanifest " + manifestHash + "\ncontent " + contentHash +
           "\nsigned-at " + signedAt + "\n";
}

std::string contentDigest(Database& db) {
    data::Sha256 h;
    h.update("dpmix-content/1\n");
    std::vector<std::string> tables;
    {
        Statement schema(db.handle(), "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name");
        while (schema.step()) {
            appendHashField(h, 'M', "");
            for (int c = 0; c < 4; ++c) appendHashValue(h, schema.value(c));
            const std::string name = schema.text(1);
            if (schema.text(0) == "table" && name.rfind("sqlite_", 0) != 0 && !uncoveredTables().count(name))
                tables.push_back(name);
        }
    }
    for (const std::string& name : tables) {  // names as SQLite stores them: quoted, never spliced raw
        std::string quoted = "\"";
        for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
        quoted += "\"";
        Statement rows(db.handle(), "SELECT rowid, * FROM " + quoted + " ORDER BY rowid");
        appendHashField(h, 'S', name);
        while (rows.step()) {
            appendHashField(h, 'W', "");
            for (int c = 0; c < rows.columnCount(); ++c) appendHashValue(h, rows.value(c));
        }
    }
    return h.hexDigest();
}

void insertSignature(Database& db, const OwnerKeyPair& key) {
    if (!hasSignaturesTable(db)) throw SqliteError("the file predates signatures (schema 6): open it read-write once");
    const std::string seal = computeSealState(db).hash, manifest = manifestHash(db), content = contentDigest(db),
                      at = utcTimestamp();
    Statement s(db.handle(),
                "INSERT INTO signatures(public_key, signed_at, seal_hash, manifest_hash, content_hash, signature) "
                "VALUES(?,?,?,?,?,?)");
    s.bind(1, key.publicKey.hex()).bind(2, at).bind(3, seal).bind(4, manifest).bind(5, content);
    s.bind(6, signMessage(key, signedMessage(seal, manifest, content, at))).run();
}

std::vector<SignatureCheck> checkSignatures(Database& db) {
    std::vector<SignatureCheck> out;
    if (!hasSignaturesTable(db)) return out;
    const std::string sealNow = computeSealState(db).hash, manifestNow = manifestHash(db);
    std::string contentNow;  // computed once, when there is a signature to check
    Statement s(db.handle(),
                "SELECT public_key, signed_at, seal_hash, manifest_hash, content_hash, signature FROM signatures "
                "ORDER BY id");
    while (s.step()) {
        SignatureCheck c;
        c.signedAt = s.text(1);
        auto key = parsePublicKey(s.text(0));
        if (key) {
            c.signer = *key;
            c.valid = verifyMessage(c.signer, signedMessage(s.text(2), s.text(3), s.text(4), c.signedAt), s.text(5));
        }
        if (contentNow.empty()) contentNow = contentDigest(db);
        c.current = s.text(2) == sealNow && s.text(3) == manifestNow && s.text(4) == contentNow;
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace dpmix::project
