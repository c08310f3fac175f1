// SHA-256 against the FIPS 180-2 example vectors, and the row-hash encoding against a value
// computed with Python's hashlib over the encoding documented in docs/PROJECT_FILE.md.
#include "engine/project/hash_chain.h"
#include "engine/project/sha256.h"

#include <QtTest>

using namespace dpmix::project;

class TestSha256 : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fipsVectors() {
        QCOMPARE(sha256Hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        QCOMPARE(sha256Hex(std::string(1000000, 'a')),
                 std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    }
    void incrementalUpdatesEqualOneShot() {
        // Split points around the 64-byte block and the 56-byte padding boundary.
        const std::string message(200, 'x');
        for (std::size_t cut : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 128u, 199u}) {
            Sha256 h;
            h.update(message.substr(0, cut));
            h.update(message.substr(cut));
            QCOMPARE(h.hexDigest(), sha256Hex(message));
        }
    }
    void rowHashEncoding() {
        // python3: hashlib.sha256(b'dpmix-row/1\n' + b'P64:' + b'0'*64 + b'S7:metrics' + b'I1:1' + b'I1:7'
        //          + b'T3:auc' + b'T4:Coat' + b'R4:0.75' + b'N0:').hexdigest()
        const std::vector<SqlValue> values = {std::int64_t{1}, std::int64_t{7}, std::string("auc"), std::string("Coat"),
                                              0.75, std::monostate{}};
        QCOMPARE(rowHash(genesisHash(), "metrics", values),
                 std::string("f986210fcd55d893f1a64c8f592aac4e33782b4ead2c41d56d18a8c2938cd397"));
    }
    void rowHashDependsOnTypeAndPrevious() {
        const std::vector<SqlValue> asInt = {std::int64_t{1}};
        const std::vector<SqlValue> asText = {std::string("1")};
        QVERIFY(rowHash(genesisHash(), "t", asInt) != rowHash(genesisHash(), "t", asText));
        QVERIFY(rowHash(genesisHash(), "t", asInt) != rowHash(std::string(64, '1'), "t", asInt));
        // Length prefixes keep ("ab","c") and ("a","bc") apart.
        QVERIFY(rowHash(genesisHash(), "t", {std::string("ab"), std::string("c")}) !=
                rowHash(genesisHash(), "t", {std::string("a"), std::string("bc")}));
    }
};

QTEST_APPLESS_MAIN(TestSha256)
#include "tst_sha256.moc"
