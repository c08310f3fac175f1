#include "engine/text/domain_proxies.h"

#include <map>

namespace dpmix::text {

Result<ProxyKind> parseProxyKind(const std::string& name) {
    if (name == "kneser-ney") return ProxyKind::KneserNey;
    if (name == "transformer") return ProxyKind::Transformer;
    return Error{"proxy kind: got \"" + name + "\", expected \"kneser-ney\" or \"transformer\""};
}

Result<DomainProxies> makeDomainProxies(Tokenizer tokenizer, std::vector<std::string> domains,
                                        std::vector<std::shared_ptr<const LanguageModel>> proxies) {
    if (domains.empty()) return Error{"domain proxies: no domains"};
    if (domains.size() != proxies.size())
        return Error{"domain proxies: " + std::to_string(domains.size()) + " domains but " +
                     std::to_string(proxies.size()) + " proxies; expected one proxy per domain"};
    for (std::size_t i = 0; i < proxies.size(); ++i) {
        if (!proxies[i]) return Error{"domain proxies: the proxy of domain \"" + domains[i] + "\" is missing"};
        if (proxies[i]->vocabulary().size != tokenizer.vocabulary().size)
            return Error{"domain proxies: the proxy of domain \"" + domains[i] + "\" has vocabulary size " +
                         std::to_string(proxies[i]->vocabulary().size) + ", expected the tokenizer's " +
                         std::to_string(tokenizer.vocabulary().size)};
    }
    DomainProxies out;
    out.tokenizer_ = std::move(tokenizer);
    out.domains_ = std::move(domains);
    out.proxies_ = std::move(proxies);
    return out;
}

Result<DomainProxies> buildDomainProxies(const data::TextCorpus& publicText, const DomainProxyOptions& options,
                                         const ProgressCallback& progress, const CancellationToken& cancel) {
    if (options.kind == ProxyKind::Transformer)
        return Error{"proxy kind \"transformer\" is not available yet; use \"kneser-ney\""};
    const std::vector<std::string> domains = corpusDomains(publicText);
    if (domains.empty()) return Error{"public text: no documents to build domain proxies from"};

    report(progress, {"proxies", 0, static_cast<long long>(domains.size()), "training the tokenizer"});
    auto tokenizer =
        trainTokenizer(tokenizerTrainingSample(publicText, options.tokenizerSample), options.tokenizer, cancel);
    if (!tokenizer) return tokenizer.error();
    report(progress, {"proxies", 0, static_cast<long long>(domains.size()), "tokenizer ready"});

    std::map<std::string, std::vector<std::size_t>> byDomain;
    for (std::size_t i = 0; i < publicText.documents.size(); ++i) byDomain[publicText.documents[i].domain].push_back(i);

    std::vector<std::shared_ptr<const LanguageModel>> proxies;
    for (std::size_t k = 0; k < domains.size(); ++k) {
        std::vector<std::vector<TokenId>> tokens;
        std::size_t bytes = 0;
        for (const std::size_t d : byDomain[domains[k]]) {
            if (options.maxTrainingBytesPerDomain > 0 && bytes >= options.maxTrainingBytesPerDomain) break;
            throwIfCancelled(cancel);
            const std::string& text = publicText.documents[d].text;
            bytes += text.size();
            auto ids = tokenizer->encode(text);
            if (!ids.empty()) tokens.push_back(std::move(ids));  // empty documents carry no text
        }
        if (tokens.empty()) return Error{"domain \"" + domains[k] + "\": no text to train its proxy on"};
        auto model = trainKneserNey(tokens, tokenizer->vocabulary(), options.ngram, cancel);
        if (!model) return Error{"domain \"" + domains[k] + "\": " + model.error().message};
        proxies.push_back(std::make_shared<const KneserNeyModel>(std::move(model).value()));
        report(progress, {"proxies", static_cast<long long>(k + 1), static_cast<long long>(domains.size()),
                          "domain " + domains[k]});
    }
    return makeDomainProxies(std::move(tokenizer).value(), domains, std::move(proxies));
}

}  // namespace dpmix::text
