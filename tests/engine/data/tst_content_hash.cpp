// SHA-256 against the FIPS 180-2 example vectors, and the content hashes against the documented
// byte encoding hashed independently (Python hashlib over struct.pack('<Q', ...) encodings).
#include "engine/data/sha256.h"
#include "engine/data/source_loader.h"

#include "tests/support/unit_test.h"

using namespace dpmix::data;

class TestContentHash : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fipsVectors() {
        QCOMPARE(sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(sha256Hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    }
    void millionAsInUnevenChunks() {
        // FIPS 180-2 long message; chunks of 1..127 bytes cross every block-boundary case.
        Sha256 h;
        std::size_t done = 0, step = 1;
        const std::string chunk(127, 'a');
        while (done < 1000000) {
            const std::size_t take = std::min(step, 1000000 - done);
            h.update(chunk.data(), take);
            done += take;
            step = step % 127 + 1;
        }
        QCOMPARE(h.hexDigest(), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    }
    void paddingBoundaries() {
        // 55, 56 and 64 bytes need one, two and two padding blocks; compare against sha256sum values.
        QCOMPARE(sha256Hex(std::string(55, 'a')),
                 std::string("9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"));
        QCOMPARE(sha256Hex(std::string(56, 'a')),
                 std::string("b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"));
        QCOMPARE(sha256Hex(std::string(64, 'a')),
                 std::string("ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"));
    }
    void textContentHashMatchesEncoding() {
        TextCorpus corpus;
        corpus.documents.push_back({"h\xc3\xa9llo", "d", "u@x"});
        corpus.documents.push_back({"", "jargon", ""});
        QCOMPARE(contentHash(corpus), std::string("6d4699b69d54dfe9ba82d720fd00c417cbb52d0550371dc1a2834e05897db399"));
        corpus.documents[1].user = "x";
        QVERIFY(contentHash(corpus) != "6d4699b69d54dfe9ba82d720fd00c417cbb52d0550371dc1a2834e05897db399");
    }
    void imageContentHashMatchesEncoding() {
        ImageDataset d;
        d.channels = 1;
        d.height = 1;
        d.width = 2;
        d.pixels = {0.0f, 1.0f, 0.5f, 0.2f};
        d.labelNames = {"a", "bb"};
        d.labels = {1, 0, 0, 1};
        d.labelMask = {1, 1, 0, 1};
        d.users = {"p1", "p2"};
        const std::string expected = "519b1b2a83c3a45f8a099037865c6437693f4c32261164373e5678d63a36abaa";
        QCOMPARE(contentHash(d), expected);
        // A change below the u8 quantum does not change the hash; one above it does.
        d.pixels[3] = 0.2f + 1e-4f;
        QCOMPARE(contentHash(d), expected);
        d.pixels[3] = 0.2f + 1.0f / 255.0f;
        QVERIFY(contentHash(d) != expected);
    }
    void emptyMaskEqualsAllKnown() {
        ImageDataset d;
        d.channels = 1;
        d.height = 1;
        d.width = 1;
        d.pixels = {0.3f};
        d.labelNames = {"x"};
        d.labels = {1};
        const std::string h = contentHash(d);
        d.labelMask = {1};
        QCOMPARE(contentHash(d), h);
        d.labelMask = {0};
        QVERIFY(contentHash(d) != h);
    }
};

QTEST_APPLESS_MAIN(TestContentHash)
#include "tst_content_hash.moc"
