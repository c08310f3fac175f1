// The shared sentencepiece tokenizer: round trip on normalised text (including characters it
// never saw, through byte fallback), determinism, save/load, and input validation.
#include "engine/text/tokenizer.h"
#include "engine/text/training_sample.h"
#include "text_fixtures.h"

#include "tests/support/unit_test.h"

#include <filesystem>
#include <fstream>

using namespace dpmix::text;

namespace {

std::vector<std::string> sample() { return tokenizerTrainingSample(testing::twoDomainCorpus(200, 11), {}); }

TokenizerOptions smallOptions(TokenizerModel model = TokenizerModel::Unigram) {
    TokenizerOptions options;
    options.vocabularySize = 400;
    options.model = model;
    return options;
}

}  // namespace

class TestTextTokenizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripOfNormalisedText_data() {
        QTest::addColumn<int>("model");
        QTest::newRow("unigram") << static_cast<int>(TokenizerModel::Unigram);
        QTest::newRow("bpe") << static_cast<int>(TokenizerModel::Bpe);
    }
    void roundTripOfNormalisedText() {
        QFETCH(int, model);
        auto tokenizer = trainTokenizer(sample(), smallOptions(static_cast<TokenizerModel>(model)));
        QVERIFY2(tokenizer.ok(), tokenizer.ok() ? "" : tokenizer.error().message.c_str());
        QVERIFY(tokenizer->vocabulary().size > 259);  // 256 bytes + unk, <s>, </s> + pieces
        QCOMPARE(tokenizer->vocabulary().bos, 1);
        QCOMPARE(tokenizer->vocabulary().eos, 2);
        // NFKC-stable, single-spaced, no leading/trailing space: these survive normalisation as is.
        const std::vector<std::string> texts{
            "the cat sleeps on a warm mat.",
            "int main return 0.",
            "words it never saw: zebra quokka",
            "na\u00efve caf\u00e9 \u2013 \u6771\u4eac \U0001F642 12345!",  // unseen characters: byte fallback
            "x",
        };
        for (const auto& text : texts) {
            const auto ids = tokenizer->encode(text);
            QVERIFY(!ids.empty());
            for (const TokenId id : ids) QVERIFY(id >= 0 && id < tokenizer->vocabulary().size);
            QCOMPARE(tokenizer->decode(ids), text);
        }
        // The tokenizer learned multi-character pieces: frequent words take fewer ids than bytes.
        QVERIFY(tokenizer->encode("the kitten sleeps").size() < std::string("the kitten sleeps").size() / 2);
        // Normalisation: runs of spaces and newlines collapse to one space.
        QCOMPARE(tokenizer->decode(tokenizer->encode("the  cat\nsleeps")), std::string("the cat sleeps"));
        QVERIFY(tokenizer->encode("").empty());
    }

    void deterministicForAFixedSeed() {
        auto first = trainTokenizer(sample(), smallOptions());
        auto second = trainTokenizer(sample(), smallOptions());
        QVERIFY(first.ok() && second.ok());
        QVERIFY(first->serializedModel() == second->serializedModel());
        auto options = smallOptions();
        options.threads = 1;
        // The thread count is part of the recipe (sentencepiece's EM sums depend on the split), so
        // it is an explicit option, never the machine's core count; fixed, it is reproducible too.
        auto oneThread = trainTokenizer(sample(), options);
        auto oneThreadAgain = trainTokenizer(sample(), options);
        QVERIFY(oneThread.ok() && oneThreadAgain.ok());
        QVERIFY(oneThread->serializedModel() == oneThreadAgain->serializedModel());
        // The sample itself is fixed by its seed and changes with it.
        TrainingSampleOptions a, b;
        a.bytesPerDomain = b.bytesPerDomain = 2000;
        b.seed = 2;
        const auto corpus = testing::twoDomainCorpus(200, 11);
        QVERIFY(tokenizerTrainingSample(corpus, a) == tokenizerTrainingSample(corpus, a));
        QVERIFY(tokenizerTrainingSample(corpus, a) != tokenizerTrainingSample(corpus, b));
    }

    void trainingSampleTakesEveryDomainWithinBudget() {
        dpmix::data::TextCorpus corpus;
        corpus.documents.push_back({"alpha line one\n\n   \nalpha line two", "a", ""});
        corpus.documents.push_back({"beta only", "b", ""});
        corpus.documents.push_back({std::string(10, 'z') + "\u00e9", "c", ""});
        TrainingSampleOptions options;
        options.maxSentenceBytes = 11;  // cuts "zzzzzzzzzzé" (12 bytes) before the 2-byte é
        const auto lines = tokenizerTrainingSample(corpus, options);
        const std::vector<std::string> expected{"alpha line ", "alpha line ", "beta only", std::string(10, 'z')};
        QCOMPARE(lines, expected);
        options.bytesPerDomain = 5;  // the first line crosses the budget: one line per domain
        QCOMPARE(tokenizerTrainingSample(corpus, options).size(), std::size_t{3});
    }

    void saveAndLoadGiveTheSameTokenizer() {
        auto tokenizer = trainTokenizer(sample(), smallOptions());
        QVERIFY(tokenizer.ok());
        dpmix::test_support::TempDir dir;
        const std::string path = dir.filePath("tokenizer.model");
        QVERIFY(!saveTokenizerFile(*tokenizer, path));
        auto loaded = loadTokenizerFile(path);
        QVERIFY(loaded.ok());
        const std::string text = "the puppy chews a bone in the sunny garden.";
        QVERIFY(loaded->encode(text) == tokenizer->encode(text));
        QCOMPARE(loaded->vocabulary().size, tokenizer->vocabulary().size);
    }

    void rejectsBadInputAndLeavesFilesAlone() {
        auto tooSmall = trainTokenizer(sample(), [] {
            auto o = smallOptions();
            o.vocabularySize = 100;
            return o;
        }());
        QVERIFY(!tooSmall.ok());
        QVERIFY2(tooSmall.error().message.find("vocabulary size: got 100") != std::string::npos,
                 tooSmall.error().message.c_str());
        QVERIFY(!trainTokenizer({}, smallOptions()).ok());
        QVERIFY(!parseTokenizerModel("wordpiece").ok());
        QVERIFY(parseTokenizerModel("bpe").ok());

        dpmix::test_support::TempDir dir;
        const std::string garbage = dir.filePath("garbage.model");
        { std::ofstream(garbage) << "not a model"; }
        auto bad = loadTokenizerFile(garbage);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.find(garbage) != std::string::npos, bad.error().message.c_str());
        QVERIFY(!loadTokenizerFile(dir.filePath("missing.model")).ok());

        auto tokenizer = trainTokenizer(sample(), smallOptions());
        QVERIFY(tokenizer.ok());
        const std::string unreachable = dir.filePath("no/such/folder/t.model");
        QVERIFY(saveTokenizerFile(*tokenizer, unreachable).has_value());
        QVERIFY(!std::filesystem::exists(unreachable));
        QVERIFY(!std::filesystem::exists(unreachable + ".tmp"));
    }
};

QTEST_APPLESS_MAIN(TestTextTokenizer)
#include "tst_text_tokenizer.moc"
