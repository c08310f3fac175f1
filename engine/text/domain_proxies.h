#pragma once
// One language-model proxy per public text domain, all sharing one tokenizer trained on a sample
// of every domain (docs/TEXT.md, "Pipeline"). The proxy kind is an option: a modified Kneser–Ney n-gram per
// domain (the CPU default, minutes for the mail study) or, later, a small causal transformer.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/data/source_loader.h"
#include "engine/text/kneser_ney_model.h"
#include "engine/text/language_model.h"
#include "engine/text/tokenizer.h"
#include "engine/text/training_sample.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dpmix::text {

enum class ProxyKind { KneserNey, Transformer };

/// "kneser-ney" | "transformer" (the latter is reserved: building it is an error for now).
Result<ProxyKind> parseProxyKind(const std::string& name);

struct DomainProxyOptions {
    ProxyKind kind = ProxyKind::KneserNey;
    TokenizerOptions tokenizer;
    TrainingSampleOptions tokenizerSample;  // its seed should be the run seed, like tokenizer.seed
    KneserNeyOptions ngram;
    /// Cap on the text each domain's proxy is trained on (0 = all): documents are taken in corpus
    /// order until the budget is reached.
    std::size_t maxTrainingBytesPerDomain = 0;
};

class DomainProxies {
public:
    const Tokenizer& tokenizer() const { return tokenizer_; }
    const std::vector<std::string>& domains() const { return domains_; }  // sorted; proxy i models domains()[i]
    std::size_t size() const { return proxies_.size(); }                  // k
    const LanguageModel& proxy(std::size_t i) const { return *proxies_.at(i); }

private:
    friend Result<DomainProxies> makeDomainProxies(Tokenizer, std::vector<std::string>,
                                                   std::vector<std::shared_ptr<const LanguageModel>>);
    Tokenizer tokenizer_;
    std::vector<std::string> domains_;
    std::vector<std::shared_ptr<const LanguageModel>> proxies_;
};

/// Assembles proxies built elsewhere (one per domain, all over the tokenizer's vocabulary).
Result<DomainProxies> makeDomainProxies(Tokenizer tokenizer, std::vector<std::string> domains,
                                        std::vector<std::shared_ptr<const LanguageModel>> proxies);

/// Trains the tokenizer on a sample of `publicText`, then one proxy per domain on that domain's
/// documents. Progress stage "proxies": done = domains finished of k (messages "training the
/// tokenizer", "tokenizer ready", then "domain <name>"). Polls `cancel` throughout.
Result<DomainProxies> buildDomainProxies(const data::TextCorpus& publicText, const DomainProxyOptions& options = {},
                                         const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::text
