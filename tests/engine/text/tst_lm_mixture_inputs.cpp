// From proxies + documents to the LM mixture objective: shapes, the token cap, user groups, and the
// end-to-end property that a target drawn from one of two domains gets λ* concentrated on it.
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/objective.h"
#include "engine/text/domain_proxies.h"
#include "engine/text/lm_mixture_inputs.h"
#include "engine/text/perplexity.h"
#include "tests/support/unit_test.h"
#include "text_fixtures.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace dpmix;
using namespace dpmix::text;

namespace {

DomainProxies toyProxies() {
    DomainProxyOptions options;
    options.tokenizer.vocabularySize = 400;
    auto proxies = buildDomainProxies(testing::twoDomainCorpus(300, 21), options);
    if (!proxies) {
        std::fprintf(stderr, "%s\n", proxies.error().message.c_str());
        std::abort();
    }
    return std::move(proxies).value();
}

std::vector<data::TextDocument> targetDocuments(int count, std::uint64_t seed) {
    std::vector<data::TextDocument> docs;
    for (auto& text : testing::generateDocuments(testing::petWords(), count, seed)) docs.push_back({text, "mail", ""});
    return docs;
}

}  // namespace

class TestLmMixtureInputs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { proxies_ = std::make_unique<DomainProxies>(toyProxies()); }

    void proxiesAreOnePerSortedDomain() {
        QCOMPARE(proxies_->size(), std::size_t{2});
        QCOMPARE(proxies_->domains(), (std::vector<std::string>{"code", "pets"}));
        QCOMPARE(proxies_->proxy(0).order(), 3);
        // The trained proxies are distributions over the tokenizer's vocabulary.
        const auto seen = proxies_->tokenizer().encode("the cat sleeps");
        const int v = proxies_->tokenizer().vocabulary().size;
        for (std::size_t i = 0; i < 2; ++i)
            for (const std::vector<TokenId>& context :
                 {std::vector<TokenId>{1, 1}, seen, std::vector<TokenId>{v - 1, 5}}) {
                double sum = 0.0;
                for (TokenId w = 0; w < v; ++w) sum += proxies_->proxy(i).probability(context, w);
                DPMIX_COMPARE_NEAR(sum, 1.0, 1e-9);
            }
        // Each proxy has the lower perplexity on held-out text of its own domain.
        std::vector<std::vector<TokenId>> pets, code;
        for (const auto& t : testing::generateDocuments(testing::petWords(), 20, 99))
            pets.push_back(proxies_->tokenizer().encode(t));
        for (const auto& t : testing::generateDocuments(testing::codeWords(), 20, 98))
            code.push_back(proxies_->tokenizer().encode(t));
        QVERIFY(*perplexity(proxies_->proxy(1), pets) < *perplexity(proxies_->proxy(0), pets));
        QVERIFY(*perplexity(proxies_->proxy(0), code) < *perplexity(proxies_->proxy(1), code));
    }

    void shapesOffsetsAndCap() {
        std::vector<data::TextDocument> docs = targetDocuments(3, 5);
        docs.insert(docs.begin() + 1, data::TextDocument{"   \n ", "mail", ""});  // no tokens: skipped
        std::string longText;
        for (int i = 0; i < 400; ++i) longText += "cat dog ";
        docs.push_back({longText, "mail", ""});
        LmInputOptions options;
        options.maxTokensPerDocument = 50;
        auto inputs = computeLmMixtureInputs(*proxies_, docs, options);
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().message.c_str());
        QCOMPARE(inputs->documents, (std::vector<std::size_t>{0, 2, 3, 4}));
        QCOMPARE(inputs->offsets.size(), std::size_t{5});
        QCOMPARE(inputs->tokenCounts.size(), std::size_t{4});
        QCOMPARE(inputs->tokenCounts.back(), 50LL);  // 800 tokens capped at 50 positions
        QCOMPARE(inputs->logLikelihoods.rows(), Eigen::Index{4});
        QCOMPARE(inputs->tokenProbabilities.cols(), Eigen::Index{2});
        for (std::size_t j = 0; j < 4; ++j) {
            const auto tokens = proxies_->tokenizer().encode(docs[inputs->documents[j]].text);
            const auto expected = std::min<long long>(static_cast<long long>(tokens.size()) + 1, 50);
            QCOMPARE(inputs->tokenCounts[j], expected);
            QCOMPARE(inputs->offsets[j + 1] - inputs->offsets[j], static_cast<Eigen::Index>(expected));
            for (Eigen::Index i = 0; i < 2; ++i) {
                // Row t of the block is p_i of position t, scored directly through the proxy.
                const auto direct = positionProbabilities(proxies_->proxy(static_cast<std::size_t>(i)), tokens, 50);
                double ll = 0.0;
                for (std::size_t t = 0; t < direct.size(); ++t) {
                    QCOMPARE(inputs->tokenProbabilities(inputs->offsets[j] + static_cast<Eigen::Index>(t), i),
                             direct[t]);
                    ll += std::log(direct[t]);
                }
                DPMIX_COMPARE_NEAR(inputs->logLikelihoods(static_cast<Eigen::Index>(j), i), ll, 1e-9 * std::abs(ll));
            }
        }
        QVERIFY(!inputs->users.has_value());
    }

    void lambdaConcentratesOnTheMatchingDomain() {
        const auto docs = targetDocuments(40, 77);
        auto inputs = computeLmMixtureInputs(*proxies_, docs);
        QVERIFY(inputs.ok());
        auto tokenObjective = mixmin::makeTokenObjective(inputs->tokenProbabilities, inputs->offsets);
        QVERIFY2(tokenObjective.ok(), tokenObjective.ok() ? "" : tokenObjective.error().message.c_str());
        auto tokenSolution = mixmin::solveNonPrivateMixMin(*tokenObjective);
        QVERIFY(tokenSolution.ok());
        QVERIFY2(tokenSolution->lambda[1] > 0.95, dpmix::test_support::str(tokenSolution->lambda[1]).c_str());

        auto sequenceObjective = mixmin::makeSequenceObjective(inputs->logLikelihoods, inputs->tokenCounts);
        QVERIFY(sequenceObjective.ok());
        auto sequenceSolution = mixmin::solveNonPrivateMixMin(*sequenceObjective);
        QVERIFY(sequenceSolution.ok());
        QVERIFY(sequenceSolution->lambda[1] > 0.95);

        // λ* is no worse than either proxy alone on the objective it minimises, and the mixture's
        // pooled perplexity is far below the wrong domain's.
        QVERIFY(tokenObjective->loss(tokenSolution->lambda) <= tokenObjective->loss(Eigen::Vector2d(0.0, 1.0)) + 1e-6);
        QVERIFY(tokenObjective->loss(tokenSolution->lambda) < tokenObjective->loss(Eigen::Vector2d(1.0, 0.0)));
        QVERIFY(*mixturePerplexity(*inputs, tokenSolution->lambda) <
                *mixturePerplexity(*inputs, Eigen::Vector2d(1.0, 0.0)));
    }

    void userGroupsFollowTheUserField() {
        auto docs = targetDocuments(4, 3);
        docs[0].user = "alice@example.org";
        docs[1].user = "bob@example.org";
        docs[2].user = "alice@example.org";
        docs[3].user = "carol@example.org";
        docs[3].text = "";  // skipped: carol has no example
        LmInputOptions options;
        options.userLevel = true;
        options.tokenMatrix = false;
        auto inputs = computeLmMixtureInputs(*proxies_, docs, options);
        QVERIFY(inputs.ok());
        QVERIFY(inputs->users.has_value());
        QCOMPARE(inputs->users->users(), Eigen::Index{2});
        QCOMPARE(inputs->users->examplesOf(0), (std::vector<Eigen::Index>{0, 2}));
        QCOMPARE(inputs->users->examplesOf(1), (std::vector<Eigen::Index>{1}));
        QCOMPARE(inputs->userIds, (std::vector<std::string>{"alice@example.org", "bob@example.org"}));
        QCOMPARE(inputs->tokenProbabilities.rows(), Eigen::Index{0});

        docs[1].user.clear();
        auto missing = computeLmMixtureInputs(*proxies_, docs, options);
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().message.find("document 1") != std::string::npos, missing.error().message.c_str());
    }

    void rejectsBadOptions() {
        const auto docs = targetDocuments(2, 1);
        LmInputOptions zeroCap;
        zeroCap.maxTokensPerDocument = 0;
        QVERIFY(!computeLmMixtureInputs(*proxies_, docs, zeroCap).ok());
        LmInputOptions nothing;
        nothing.tokenMatrix = nothing.sequenceLikelihoods = false;
        QVERIFY(!computeLmMixtureInputs(*proxies_, docs, nothing).ok());
        const std::vector<data::TextDocument> empty{{"", "mail", ""}};
        QVERIFY(!computeLmMixtureInputs(*proxies_, empty).ok());
        QVERIFY(!parseProxyKind("lstm").ok());
        auto corpus = testing::twoDomainCorpus(50, 4);
        corpus.documents.push_back({"  \n ", "blank", ""});  // a domain without any text
        DomainProxyOptions small;
        small.tokenizer.vocabularySize = 300;
        auto blank = buildDomainProxies(corpus, small);
        QVERIFY(!blank.ok());
        QVERIFY2(blank.error().message.find("domain \"blank\"") != std::string::npos, blank.error().message.c_str());
        DomainProxyOptions transformer;
        transformer.kind = ProxyKind::Transformer;
        auto notYet = buildDomainProxies(testing::twoDomainCorpus(5, 1), transformer);
        QVERIFY(!notYet.ok());
        QVERIFY(notYet.error().message.find("transformer") != std::string::npos);
    }

private:
    std::unique_ptr<DomainProxies> proxies_;
};

QTEST_APPLESS_MAIN(TestLmMixtureInputs)
#include "tst_lm_mixture_inputs.moc"
