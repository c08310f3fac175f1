// The formulas behind tamper evidence, each against a value computed outside dpmix: the seal's
// state and hash (seal.h), the content digest and the signed text (file_signature.h), and the
// owner's Ed25519 signatures and fingerprints (owner_key.h). Expected hashes were computed with
// Python's hashlib from the byte strings the docs define (docs/PROJECT_FILE.md, "Seal" and
// "Signatures"); the signatures are RFC 8032's test vectors 1 and 2 (section 7.1), checked
// again with the `cryptography` package.
#include "tests/support/unit_test.h"

#include "engine/project/file_signature.h"
#include "engine/project/owner_key.h"
#include "engine/project/schema.h"
#include "engine/project/seal.h"
#include "engine/project/sqlite_db.h"

using namespace dpmix;
using namespace dpmix::project;
using dpmix::test_support::TempDir;

namespace {

std::string fromHex(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

// RFC 8032, 7.1: TEST 1 (empty message) and TEST 2 (one byte 0x72).
struct Rfc8032Vector {
    const char* seed;
    const char* publicKey;
    std::string message;
    const char* signature;
    const char* fingerprint;  // "SHA256:" + the first 16 bytes of SHA-256(public key), in groups of 2
};

const Rfc8032Vector kVectors[] = {
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe246"
     "5"
     "5141438e7a100b",
     "SHA256:21fe:31df:a154:a261:626b:f854:046f:d227"},
    {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "\x72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb"
     "0"
     "0d291612bb0c00",
     "SHA256:39f7:13d0:a644:253f:0452:9421:b9f5:1b9b"},
};

OwnerKeyPair keyOf(const Rfc8032Vector& v) {
    OwnerKeyPair key;
    key.publicKey.bytes = fromHex(v.publicKey);
    key.secret = fromHex(v.seed) + key.publicKey.bytes;  // libsodium's secret key: seed, then public key
    return key;
}

}  // namespace

class TestSignatureFormulas : public QObject {
    Q_OBJECT
    TempDir dir_;

private Q_SLOTS:
    void ed25519MatchesRfc8032() {
        for (const auto& v : kVectors) {
            const OwnerKeyPair key = keyOf(v);
            QCOMPARE(signMessage(key, v.message), std::string(v.signature));
            QVERIFY(verifyMessage(key.publicKey, v.message, v.signature));
            QVERIFY(!verifyMessage(key.publicKey, v.message + "x", v.signature));
            std::string flipped = v.signature;
            flipped[10] = flipped[10] == '0' ? '1' : '0';
            QVERIFY(!verifyMessage(key.publicKey, v.message, flipped));
            QCOMPARE(key.publicKey.fingerprint(), std::string(v.fingerprint));
            QCOMPARE(key.publicKey.fileText(), "dpmix-ed25519 " + std::string(v.publicKey) + "\n");
            QCOMPARE(parsePublicKey(key.publicKey.fileText())->bytes, key.publicKey.bytes);
            QCOMPARE(parsePublicKey(v.publicKey)->bytes, key.publicKey.bytes);  // bare hex
        }
        QVERIFY(!verifyMessage(keyOf(kVectors[1]).publicKey, kVectors[0].message, kVectors[0].signature));
        QVERIFY(!parsePublicKey("dpmix-ed25519 d75a98").ok());                               // truncated
        QVERIFY(!parsePublicKey("ssh-ed25519 " + std::string(kVectors[0].publicKey)).ok());  // another tag
    }

    void signedTextIsAsDocumented() {
        QCOMPARE(signedMessage("S", "M", "C", "2024-01-01T00:00:00.000Z"),
                 std::string("dpmix-signature/1\nseal S\nmanifest M\ncontent C\nsigned-at 2024-01-01T00:00:00.000Z\n"));
    }

    // A schema-6 file with one spec row and one run whose row hashes are set by hand: the seal
    // records every chained table's count and last hash, and the runs' state digest
    // rowHash(genesis, "runs-state", [1, "done", "2024-01-01T00:00:00.000Z", NULL, "ok"]).
    void sealStateAndHashArePinned() {
        Database db(dir_.filePath("seal.db"), Database::Mode::ReadWriteCreate);
        {
            Transaction t(db);
            createCurrentSchema(db);
            db.exec("INSERT INTO spec(id, spec_json, created_at, created_by, row_hash) VALUES(1, '{}', 'c', 'b', '" +
                    std::string(64, 'a') + "')");
            db.exec(
                "INSERT INTO runs(id, method, task, epsilon, seed, config_json, build_version, created_at, status, "
                "started_at, finished_at, message, row_hash) VALUES(1, 'm', 't', 1.0, 1, '{}', 'v', 'c', 'done', "
                "'2024-01-01T00:00:00.000Z', NULL, 'ok', '" +
                std::string(64, 'b') + "')");
            t.commit();
        }
        const SealState state = computeSealState(db);
        QVERIFY2(state.json.find("\"runs\":\"349baf8570cbe26e255b9da0f8f37620235fca6e1872b07288fc525f5db5c1b5\"") !=
                     std::string::npos,
                 state.json.c_str());
        QVERIFY(state.json.find("\"spec\":{\"head\":\"" + std::string(64, 'a') + "\",\"rows\":1}") !=
                std::string::npos);
        QCOMPARE(state.hash, std::string("d6d6f5c66f898836452a430eb4c2c6fd15c539add2404c6cfd033368fe6aaabd"));

        // Written and checked back; one run's message changed outside dpmix is found.
        {
            Transaction t(db);
            writeSeal(db);
            t.commit();
        }
        QVERIFY(checkSeal(db).ok);
        db.exec("UPDATE runs SET message = 'ok.' WHERE id = 1");
        QVERIFY(!checkSeal(db).ok);
    }

    // The content digest of a two-row table: "dpmix-content/1\n", then per schema row M0: and its
    // four fields, then per table S<name> and per row W0: with rowid and every column.
    void contentDigestIsPinned() {
        Database db(dir_.filePath("content.db"), Database::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t(a, b)");
        db.exec("INSERT INTO t(a, b) VALUES(1, 'x')");
        db.exec("INSERT INTO t(a, b) VALUES(2.5, NULL)");
        QCOMPARE(contentDigest(db), std::string("604fac614df80c82c71389ba8551229a98125ad1441710068e3fea5e748f0f51"));
        db.exec("UPDATE t SET b = 'y' WHERE rowid = 1");  // any stored value counts
        QVERIFY(contentDigest(db) != "604fac614df80c82c71389ba8551229a98125ad1441710068e3fea5e748f0f51");
    }
};

QTEST_APPLESS_MAIN(TestSignatureFormulas)
#include "tst_signature_formulas.moc"
