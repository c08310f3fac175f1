// The row-hash encoding of the tamper-evident chain, against a value computed with Python's
// hashlib over the encoding documented in docs/PROJECT_FILE.md (SHA-256 itself is tested with
// the data layer, engine/data/sha256.h).
#include "engine/project/hash_chain.h"

#include "tests/support/unit_test.h"

using namespace dpmix::project;

class TestHashChain : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rowHashEncoding() {
        // python3: hashlib.sha256(b'dpmix-row/1\n' + b'P64:' + b'0'*64 + b'S7:metrics' + b'I1:1' + b'I1:7'
        //          + b'T3:auc' + b'T4:Coat' + b'R4:0.75' + b'N0:').hexdigest()
        const std::vector<SqlValue> values = {
            std::int64_t{1}, std::int64_t{7}, std::string("auc"), std::string("Coat"), 0.75, std::monostate{}};
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

QTEST_APPLESS_MAIN(TestHashChain)
#include "tst_hash_chain.moc"
