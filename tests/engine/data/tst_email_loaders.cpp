// E-mail parsing and the "spam-assassin", "mbox" and "maildir" loaders on generated fixtures.
#include "data_fixtures.h"
#include "engine/data/email_message.h"
#include "engine/data/source_loader.h"

#include "tests/support/unit_test.h"

#include <nlohmann/json.hpp>

using namespace dpmix::data;
namespace fx = dpmix::data::fixtures;

namespace {
const std::string kAnn = "From: Ann Smith <Ann@Example.COM>\nTo: bob@x.org\nSubject: hi\n\nBody of ann.\n";
const std::string kBob = "Subject: folded\r\nFrom:\r\n  bob@x.org (Bob)\r\n\r\nBob's body\r\n";
}  // namespace

class TestEmailLoaders : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string path(const std::string& name) { return dir_.filePath(name); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void senderAndBody() {
        QCOMPARE(senderAddress(" Ann Smith <Ann@Example.COM>"), std::string("ann@example.com"));
        QCOMPARE(senderAddress(" bob@x.org (Bob)"), std::string("bob@x.org"));
        QCOMPARE(senderAddress(" no address"), std::string(""));
        const EmailMessage ann = parseEmail(kAnn, false);
        QCOMPARE(ann.sender, std::string("ann@example.com"));
        QCOMPARE(ann.text, std::string("Body of ann.\n"));
        QCOMPARE(parseEmail(kAnn, true).text, kAnn);
        const EmailMessage bob = parseEmail(kBob, false);  // folded From:, CRLF
        QCOMPARE(bob.sender, std::string("bob@x.org"));
        QCOMPARE(bob.text, std::string("Bob's body\r\n"));
    }

    void mbox() {
        fx::writeFile(path("box.mbox"), "From ann@example.com Mon Jan  1 00:00:00 2001\n" + kAnn +
                                            ">From the start\n\nFrom bob@x.org Tue Jan  2 00:00:00 2001\n" + kBob);
        auto c = loadTextSource({"mb", "mbox", path("box.mbox"), {}});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->documents.size(), std::size_t(2));
        QCOMPARE(c->documents[0].user, std::string("ann@example.com"));
        QCOMPARE(c->documents[0].text, std::string("Body of ann.\nFrom the start\n"));
        QCOMPARE(c->documents[0].domain, std::string("email"));
        QCOMPARE(c->documents[1].user, std::string("bob@x.org"));
        fx::writeFile(path("notmbox.txt"), "hello\n");
        auto bad = loadTextSource({"mb", "mbox", path("notmbox.txt"), {}});
        QVERIFY(!bad.ok() && bad.error().message.find("not an mbox file") != std::string::npos);
        fx::writeFile(path("latin1.mbox"), "From a@b Mon\nFrom: a@b\n\nna\xefve\nFrom c@d Mon\nFrom: c@d\n\nok\n");
        auto enc = loadTextSource({"mb", "mbox", path("latin1.mbox"), {}});
        QVERIFY(!enc.ok() && enc.error().message.find("message 1: text is not valid UTF-8") != std::string::npos);
    }

    void maildir() {
        fx::writeFile(path("md/cur/1"), kAnn);
        fx::writeFile(path("md/new/2"), kBob);
        fx::writeFile(path("md/tmp/3"), "From: tmp@x\n\nnot delivered yet\n");
        auto c = loadTextSource({"md", "maildir", path("md"), {{"headers", "keep"}, {"domain", "work"}}});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->documents.size(), std::size_t(2));  // cur/ then new/, tmp/ ignored
        QCOMPARE(c->documents[0].text, kAnn);
        QCOMPARE(c->documents[1].user, std::string("bob@x.org"));
        QCOMPARE(c->documents[1].domain, std::string("work"));
        // A plain tree of message files (Enron layout) is read recursively.
        fx::writeFile(path("enron/ann/sent/1."), kAnn);
        auto e = loadTextSource({"md", "maildir", path("enron"), {}});
        QVERIFY(e.ok() && e->documents.size() == 1 && e->documents[0].user == "ann@example.com");
        auto h = loadTextSource({"md", "maildir", path("md"), {{"headers", "drop"}}});
        QVERIFY(!h.ok() && h.error().message.find("expected strip or keep") != std::string::npos);
    }

    void spamAssassin() {
        // The npm package layout: data/<group>/<id>.json records, plus file_list.json (skipped).
        const auto record = [](const std::string& group, const std::string& text) {
            const nlohmann::json o{{"id", "1"}, {"group", group}, {"text", text}};
            return o.dump(4);
        };
        fx::writeFile(path("sa/easy-ham-1/00001.json"), record("easy-ham-1", "From x  Fri\n" + kAnn));
        fx::writeFile(path("sa/spam-1/00002.json"), record("spam-1", kBob));
        fx::writeFile(path("sa/file_list.json"), "[\"easy-ham-1/00001.txt\"]");
        auto c = loadTextSource({"sa", "spam-assassin", path("sa"), {}});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->documents.size(), std::size_t(2));
        QCOMPARE(c->documents[0].user, std::string("ann@example.com"));
        QCOMPARE(c->documents[0].text, std::string("Body of ann.\n"));
        auto ham = loadTextSource({"sa", "spam-assassin", path("sa"), {{"groups", "easy-ham-1"}}});
        QVERIFY(ham.ok() && ham->documents.size() == 1);
        // A single JSON array file works too.
        fx::writeFile(path("sa.json"), "[" + record("g", kAnn) + "," + record("g", kBob) + "]");
        auto arr = loadTextSource({"sa", "spam-assassin", path("sa.json"), {}});
        QVERIFY(arr.ok() && arr->documents.size() == 2);
        fx::writeFile(path("sa-bad.json"), "[{\"id\": 1}]");
        auto bad = loadTextSource({"sa", "spam-assassin", path("sa-bad.json"), {}});
        QVERIFY(!bad.ok() && bad.error().message.find("record 1: expected an object with a string field \"text\"") !=
                                 std::string::npos);
        auto none = loadTextSource({"sa", "spam-assassin", path("sa"), {{"groups", "spam-9"}}});
        QVERIFY(!none.ok() && none.error().message.find("empty data set") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestEmailLoaders)
#include "tst_email_loaders.moc"
