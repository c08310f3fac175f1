// Text loaders ("jsonl", "text-folder") and UTF-8 validation on generated fixtures.
#include "data_fixtures.h"
#include "engine/data/source_loader.h"
#include "engine/data/utf8.h"

#include "tests/support/unit_test.h"

#include <filesystem>

using namespace dpmix::data;
namespace fx = dpmix::data::fixtures;

class TestTextLoaders : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string path(const std::string& name) { return dir_.filePath(name); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void utf8Validation() {
        std::size_t bad = 99;
        QVERIFY(isValidUtf8("plain ascii"));
        QVERIFY(isValidUtf8("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // é € 😀
        QVERIFY(!isValidUtf8("ab\xff", &bad));
        QCOMPARE(bad, std::size_t(2));
        QVERIFY(!isValidUtf8("\xc0\xaf"));          // overlong '/'
        QVERIFY(!isValidUtf8("\xed\xa0\x80"));      // UTF-16 surrogate
        QVERIFY(!isValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
        QVERIFY(!isValidUtf8("\xe2\x82", &bad));    // truncated sequence
        QCOMPARE(bad, std::size_t(0));
        QCOMPARE(replaceInvalidUtf8("a\xffz"), std::string("a\xef\xbf\xbdz"));
    }

    void jsonl() {
        fx::writeFile(path("mail.jsonl"),
                      "{\"text\": \"hello\", \"user\": \"ann\", \"domain\": \"enron\"}\n"
                      "\n"
                      "{\"text\": \"caf\\u00e9\", \"user\": 7}\n"
                      "{\"text\": \"third\"}\n");
        auto c = loadTextSource({"m", "jsonl", path("mail.jsonl"), {}});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->documents.size(), std::size_t(3));
        QCOMPARE(c->documents[0].text, std::string("hello"));
        QCOMPARE(c->documents[0].user, std::string("ann"));
        QCOMPARE(c->documents[0].domain, std::string("enron"));
        QCOMPARE(c->documents[1].text, std::string("caf\xc3\xa9"));
        QCOMPARE(c->documents[1].user, std::string("7"));
        QCOMPARE(c->documents[1].domain, std::string("mail"));  // file stem
        auto limited = loadTextSource({"m", "jsonl", path("mail.jsonl"), {{"limit", "1"}, {"domain", "x"}}});
        QVERIFY(limited.ok());
        QCOMPARE(limited->documents.size(), std::size_t(1));
        auto s = summarizeSource({"m", "jsonl", path("mail.jsonl"), {}});
        QVERIFY(s.ok());
        QCOMPARE(nameOf(s->kind), std::string("text"));
        QCOMPARE(s->examples, 3LL);
        QCOMPARE(s->users, 2LL);
        QCOMPARE(s->domains, (std::vector<std::string>{"enron", "mail"}));
    }

    void jsonlBadInputs() {
        fx::writeFile(path("bad1.jsonl"), "{\"text\": \"ok\"}\n{\"text\": \"x\xff\"}\n");
        fx::writeFile(path("bad2.jsonl"), "{\"text\": \"ok\"}\n{\"txt\": \"x\"}\n");
        fx::writeFile(path("bad3.jsonl"), "{\"text\": \"ok\"}\n{\"text\": \n");
        fx::writeFile(path("empty.jsonl"), "\n\n");
        const auto err = [&](const std::string& file, std::map<std::string, std::string> options = {}) {
            auto c = loadTextSource({"src", "jsonl", path(file), std::move(options)});
            return c.ok() ? std::string() : c.error().message;
        };
        QVERIFY(err("bad1.jsonl").find("line 2: not valid UTF-8") != std::string::npos);
        QVERIFY(err("bad2.jsonl").find("line 2: expected an object with a string field \"text\"") != std::string::npos);
        QVERIFY(err("bad3.jsonl").find("line 2: not valid JSON") != std::string::npos);
        QVERIFY(err("empty.jsonl").find("empty data set") != std::string::npos);
        QVERIFY(err("none.jsonl").find("does not exist") != std::string::npos);
        QVERIFY(err("bad1.jsonl", {{"encodng_errors", "replace"}}).find("unknown option 'encodng_errors'") !=
                std::string::npos);
        // An invalid policy is an error at once, also on a file whose text is all valid UTF-8.
        fx::writeFile(path("good.jsonl"), "{\"text\": \"ok\"}\n");
        QVERIFY(err("good.jsonl", {{"encoding_errors", "ignore"}})
                    .find("option 'encoding_errors' = 'ignore' is not valid") != std::string::npos);
        auto replaced = loadTextSource({"src", "jsonl", path("bad1.jsonl"), {{"encoding_errors", "replace"}}});
        QVERIFY(replaced.ok());
        QCOMPARE(replaced->documents[1].text, std::string("x\xef\xbf\xbd"));
    }

    void textFolder() {
        fx::writeFile(path("books/b.txt"), "second file\n");
        fx::writeFile(path("books/a/1.txt"), "para one\nstill one\n\n\n  \npara two\r\n");
        fx::writeFile(path("books/.hidden"), "ignored");
        auto files = loadTextSource({"b", "text-folder", path("books"), {}});
        QVERIFY2(files.ok(), files.ok() ? "" : files.error().message.c_str());
        QCOMPARE(files->documents.size(), std::size_t(2));
        QCOMPARE(files->documents[0].text,
                 std::string("para one\nstill one\n\n\n  \npara two\r\n"));  // a/1.txt sorts first
        QCOMPARE(files->documents[1].domain, std::string("books"));
        auto blocks = loadTextSource({"b", "text-folder", path("books"), {{"split", "blank-line"}, {"domain", "lit"}}});
        QVERIFY(blocks.ok());
        QCOMPARE(blocks->documents.size(), std::size_t(3));
        QCOMPARE(blocks->documents[0].text, std::string("para one\nstill one"));
        QCOMPARE(blocks->documents[1].text, std::string("para two"));
        QCOMPARE(blocks->documents[2].text, std::string("second file"));
        QCOMPARE(blocks->documents[2].domain, std::string("lit"));
    }

    void textFolderCancellation() {
        LoadControl control;
        control.cancel.cancel();
        QVERIFY_THROWS_EXCEPTION(dpmix::Cancelled,
                                 (void)loadTextSource({"b", "text-folder", path("books"), {}}, control));
    }

    void textFolderBadInputs() {
        fx::writeFile(path("latin1/x.txt"), "ok\n\nna\xefve\n");
        auto c = loadTextSource({"t", "text-folder", path("latin1"), {{"split", "blank-line"}}});
        QVERIFY(!c.ok());
        QVERIFY2(c.error().message.find("block at line 3: text is not valid UTF-8") != std::string::npos,
                 c.error().message.c_str());
        auto f = loadTextSource({"t", "text-folder", path("latin1/x.txt"), {}});
        QVERIFY(!f.ok() && f.error().message.find("is not a folder") != std::string::npos);
        std::filesystem::create_directories(path("nothing"));
        auto e = loadTextSource({"t", "text-folder", path("nothing"), {}});
        QVERIFY(!e.ok() && e.error().message.find("empty data set") != std::string::npos);
        auto s = loadTextSource({"t", "text-folder", path("latin1"), {{"split", "para"}}});
        QVERIFY(!s.ok() && s.error().message.find("expected file or blank-line") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestTextLoaders)
#include "tst_text_loaders.moc"
