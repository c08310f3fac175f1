// The token bridge between dpmix-text and dpmix: round trip, per-user streams, and clear errors
// (naming the file) for missing, truncated or inconsistent caches; a refused write changes
// nothing on disk.
#include "engine/text_tokens/text_downstream_tokens.h"

#include "tests/support/unit_test.h"

#include <filesystem>
#include <fstream>

using namespace dpmix::text_tokens;
namespace fs = std::filesystem;

namespace {

TokenCache smallCache() {
    TokenCache c;
    c.task = "mail";
    c.tokenizerSha256 = "abc123";
    c.vocabulary = 10;
    c.eos = 2;
    c.domains = {"news", "code"};
    c.publicDomains.resize(2);
    c.publicDomains[0].add({3, 4, 2});
    c.publicDomains[0].add({5, 2});
    c.publicDomains[1].add({9, 8, 7, 2});
    c.users = {"ann", "bob", "cy"};
    c.sensitive.add({3, 3, 2});  // bob
    c.sensitive.add({4, 2});     // ann
    c.sensitive.add({5, 6, 2});  // bob
    c.sensitive.add({7, 2});     // cy
    c.documentUser = {1, 0, 1, 2};
    c.testUsers = {2};
    SeedMixtures s;
    s.seed = 4;
    s.usersA = {0};
    s.usersB = {1};
    s.lambdaStar = {0.9, 0.1};
    s.lambdaUniform = {0.5, 0.5};
    s.lambdaRandomSearch = {0.7, 0.3};
    s.privateLambdas.push_back({1.0, {0.8, 0.2}, R"({"composition":"parallel","entries":[]})"});
    c.seeds.push_back(s);
    return c;
}

fs::path freshDir(const char* name) {
    fs::path d = fs::temp_directory_path() / ("dpmix-tst-tokens-" + std::to_string(::getpid())) / name;
    fs::remove_all(d);
    fs::create_directories(d.parent_path());
    return d;
}

}  // namespace

class TestTextDownstreamTokens : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip() {
        const fs::path dir = freshDir("round-trip");
        QVERIFY(!writeTokenCache(dir, smallCache()));
        auto read = readTokenCache(dir);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        const TokenCache& c = *read;
        QCOMPARE(c.task, std::string("mail"));
        QCOMPARE(c.tokenizerSha256, std::string("abc123"));
        QCOMPARE(c.vocabulary, 10);
        QCOMPARE(c.domains, (std::vector<std::string>{"news", "code"}));
        QCOMPARE(c.publicDomains[0].tokens, (std::vector<std::int32_t>{3, 4, 2, 5, 2}));
        QCOMPARE(c.publicDomains[0].offsets, (std::vector<std::int64_t>{0, 3, 5}));
        QCOMPARE(c.publicDomains[1].tokens, (std::vector<std::int32_t>{9, 8, 7, 2}));
        QCOMPARE(c.documentUser, (std::vector<std::int32_t>{1, 0, 1, 2}));
        QCOMPARE(c.seeds.size(), std::size_t(1));
        QCOMPARE(c.seeds[0].seed, std::uint64_t(4));
        QCOMPARE(c.seeds[0].lambdaRandomSearch, (std::vector<double>{0.7, 0.3}));
        QCOMPARE(c.seeds[0].privateLambdas.at(0).epsilon, 1.0);
        QCOMPARE(c.seeds[0].privateLambdas.at(0).lambda, (std::vector<double>{0.8, 0.2}));
        QVERIFY(c.seeds[0].privateLambdas.at(0).ledgerJson.find("parallel") != std::string::npos);
        fs::remove_all(dir);
    }

    void userStreamsConcatenateInCorpusOrder() {
        const TokenCache c = smallCache();
        auto streams = c.userStreams({1, 2});  // bob's two mails, then cy's
        QCOMPARE(streams.size(), std::size_t(2));
        QCOMPARE(streams[0], (std::vector<std::int32_t>{3, 3, 2, 5, 6, 2}));
        QCOMPARE(streams[1], (std::vector<std::int32_t>{7, 2}));
    }

    void missingIndexIsNamed() {
        const fs::path dir = freshDir("missing");
        auto read = readTokenCache(dir);
        QVERIFY(!read.ok());
        QVERIFY(read.error().message.find((dir / "index.json").string()) != std::string::npos);
        QVERIFY(read.error().message.find("--export-tokens") != std::string::npos);
    }

    void truncatedArrayIsNamed() {
        const fs::path dir = freshDir("truncated");
        QVERIFY(!writeTokenCache(dir, smallCache()));
        fs::resize_file(dir / "public-1.tokens", 12);  // 3 of its 4 tokens
        auto read = readTokenCache(dir);
        QVERIFY(!read.ok());
        QVERIFY2(read.error().message.find("public-1.tokens has 12 bytes, expected 16") != std::string::npos,
                 read.error().message.c_str());
        fs::remove_all(dir);
    }

    void tokenOutsideVocabularyIsNamed() {
        const fs::path dir = freshDir("bad-id");
        QVERIFY(!writeTokenCache(dir, smallCache()));
        {  // overwrite sensitive token 1 with id 10 (vocabulary 0..9)
            std::fstream f(dir / "sensitive.tokens", std::ios::in | std::ios::out | std::ios::binary);
            const std::int32_t bad = 10;
            f.seekp(sizeof(std::int32_t));
            f.write(reinterpret_cast<const char*>(&bad), sizeof bad);
        }
        auto read = readTokenCache(dir);
        QVERIFY(!read.ok());
        QVERIFY2(read.error().message.find("sensitive.tokens holds id 10 at position 1") != std::string::npos,
                 read.error().message.c_str());
        fs::remove_all(dir);
    }

    void refusedWriteLeavesTheOldCache() {
        const fs::path dir = freshDir("refused");
        QVERIFY(!writeTokenCache(dir, smallCache()));
        const auto before = fs::file_size(dir / "index.json");
        TokenCache bad = smallCache();
        bad.seeds[0].usersB = {7};  // no user 7
        auto e = writeTokenCache(dir, bad);
        QVERIFY(e.has_value());
        QVERIFY2(e->message.find("users_b lists user 7") != std::string::npos, e->message.c_str());
        QCOMPARE(fs::file_size(dir / "index.json"), before);
        QVERIFY(readTokenCache(dir).ok());
        fs::remove_all(dir);
    }

    void lambdaOfWrongLengthIsRefused() {
        TokenCache bad = smallCache();
        bad.seeds[0].privateLambdas[0].lambda = {1.0};
        auto e = checkTokenCache(bad);
        QVERIFY(e.has_value());
        QVERIFY(e->message.find("one weight per domain (2)") != std::string::npos);
    }

    void cleanupTestCase() {
        fs::remove_all(fs::temp_directory_path() / ("dpmix-tst-tokens-" + std::to_string(::getpid())));
    }
};

QTEST_APPLESS_MAIN(TestTextDownstreamTokens)
#include "tst_text_downstream_tokens.moc"
