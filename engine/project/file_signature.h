#pragma once
// The data owner's signature inside a project or release file (schema v6, table `signatures`):
// an Ed25519 signature (owner_key.h) over the file's seal hash (seal.h: every chained table's
// row count and last hash, and the runs' statuses), for a release the SHA-256 of its manifest,
// and a digest of the whole content: the schema and every row of every table but the signatures,
// the seal (checked on its own) and the working settings (a draft, never a result). So a change
// of any stored value, chained or not, or of the schema, breaks the signature
// (docs/PROJECT_FILE.md, "Signatures"). The signature is outside what it signs; a write after
// signing leaves it in place but no longer covering the file, which the check reports.
#include "engine/project/owner_key.h"
#include "engine/project/sqlite_db.h"

#include <string>
#include <vector>

namespace dpmix::project {

struct SignatureCheck {
    OwnerPublicKey signer;
    std::string signedAt;
    bool valid = false;    // the signature is the signer's, over what the row says it signs
    bool current = false;  // what it signs is the file as it is now (seal and manifest)
};

/// The text that is signed.
std::string signedMessage(const std::string& sealHash, const std::string& manifestHash, const std::string& contentHash,
                          const std::string& signedAt);

/// SHA-256 (hex) of the file's content as signatures cover it (see above).
std::string contentDigest(Database& db);

/// Signs the file's current seal (and manifest, if any) with `key` (caller holds a transaction
/// whose seal is current: seal.h's hooks).
void insertSignature(Database& db, const OwnerKeyPair& key);

/// Every signature the file carries, checked against the file as it is (none in a file older
/// than schema 6).
std::vector<SignatureCheck> checkSignatures(Database& db);

}  // namespace dpmix::project
