// On the real public text of scripts/fetch-data.sh (data/text/<domain>.jsonl): proxies built on
// three domains each give their own domain's held-out documents the lowest perplexity.
// QSKIPs when the data is absent.
#include "engine/data/source_loader.h"
#include "engine/text/domain_proxies.h"
#include "engine/text/perplexity.h"

#include "tests/support/unit_test.h"

#include <cstdlib>
#include <filesystem>

using namespace dpmix;
using namespace dpmix::text;

class TestTextRealData : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ownDomainHasTheLowestPerplexity() {
        const char* root = std::getenv("DPMIX_DATA_DIR");
        const std::filesystem::path dir =
            std::filesystem::path(root ? std::string(root) : dpmix::test_support::sourceDir() + "/data") / "text";
        const std::vector<std::string> names{"c-headers", "fortunes", "python-stdlib"};
        for (const auto& name : names)
            if (!std::filesystem::exists(dir / (name + ".jsonl")))
                QSKIP("data/text/*.jsonl not present (run scripts/fetch-data.sh)");

        // Per domain: every 10th document is held out, the rest (up to ~600 kB) trains the proxy.
        data::TextCorpus train;
        std::vector<std::vector<std::string>> heldOut(names.size());
        for (std::size_t k = 0; k < names.size(); ++k) {
            data::SourceSpec spec{names[k], "jsonl", (dir / (names[k] + ".jsonl")).string(), {{"domain", names[k]}}};
            auto corpus = data::loadTextSource(spec);
            QVERIFY2(corpus.ok(), corpus.ok() ? "" : corpus.error().message.c_str());
            std::size_t bytes = 0;
            for (std::size_t i = 0; i < corpus->documents.size(); ++i) {
                const auto& doc = corpus->documents[i];
                if (i % 10 == 5 && heldOut[k].size() < 20)
                    heldOut[k].push_back(doc.text);
                else if (bytes < 600000) {
                    bytes += doc.text.size();
                    train.documents.push_back({doc.text, names[k], ""});
                }
            }
            QVERIFY(!heldOut[k].empty());
        }
        DomainProxyOptions options;
        options.tokenizer.vocabularySize = 4000;
        options.tokenizerSample.bytesPerDomain = 300000;
        auto proxies = buildDomainProxies(train, options);
        QVERIFY2(proxies.ok(), proxies.ok() ? "" : proxies.error().message.c_str());
        QCOMPARE(proxies->domains(), names);  // already in sorted order

        for (std::size_t k = 0; k < names.size(); ++k) {
            std::vector<std::vector<TokenId>> tokens;
            for (const auto& text : heldOut[k]) tokens.push_back(proxies->tokenizer().encode(text));
            std::vector<double> ppl;
            for (std::size_t i = 0; i < names.size(); ++i) ppl.push_back(*perplexity(proxies->proxy(i), tokens, 256));
            for (std::size_t i = 0; i < names.size(); ++i)
                if (i != k)
                    QVERIFY2(ppl[k] < ppl[i],
                             test_support::str("held-out ", names[k], ": own ", ppl[k], ", ", names[i], " ", ppl[i])
                                 .c_str());
            qInfo("held-out %s: perplexities %.1f %.1f %.1f", names[k].c_str(), ppl[0], ppl[1], ppl[2]);
        }
    }
};

QTEST_APPLESS_MAIN(TestTextRealData)
#include "tst_text_real_data.moc"
