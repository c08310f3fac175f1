#pragma once
// What stands for a patient in a DICOM source: a keyed hash of the header's user id (PatientID by
// default), never the id itself. The splits need one stable identity per patient (splits.h), and
// the content hash and the budget store are computed over these identities; with a key that only
// the data owner holds, an id cannot be confirmed by hashing guesses of it (a hospital's patient
// ids are short and guessable), so nothing the project stores, a log shows or a release carries
// names a patient (docs/PRIVACY.md, "DICOM sources").
//
// The key: option "pseudonym_key" = a key file, else dicom-pseudonym.key in the data owner's key
// folder ($DPMIX_KEY_DIR, else $XDG_CONFIG_HOME/dpmix, else ~/.config/dpmix: where owner.key is),
// made on first use (32 random bytes from the OS, hex, mode 0600, folder 0700). A key file others
// can read is refused. The same key gives the same pseudonyms, hence the same split and budget.
#include "engine/core/result.h"
#include "engine/data/source_spec.h"

#include <string>

namespace dpmix::data {

/// The key bytes for `spec` (made when the default file is missing); errors name the key file.
Result<std::string> dicomPseudonymKey(const SourceSpec& spec);

/// "p" + the first 32 hex digits (128 bits) of HMAC-SHA256(key, id).
std::string dicomPseudonym(const std::string& key, const std::string& id);

/// HMAC-SHA256 (RFC 2104) in hex: exposed for its test vectors (RFC 4231).
std::string hmacSha256Hex(const std::string& key, const std::string& message);

}  // namespace dpmix::data
