#include "engine/text_study/text_downstream_export.h"

#include "engine/pipeline/run_storage.h"
#include "engine/privacy/ledger_json.h"
#include "engine/text/tokenizer.h"

#include <algorithm>
#include <map>

namespace dpmix::text_study {
namespace {

Result<data::TextCorpus> loadTextRecord(const project::ProjectSpec& spec, const project::SourceRecord& r) {
    auto loaded =
        data::loadTextSource(data::SourceSpec{r.name, r.loader, r.path, pipeline::sourceOptions(spec, r.name)});
    if (!loaded) return Error{project::nameOf(r.role) + " source '" + r.name + "': " + loaded.error().message};
    return loaded;
}

std::vector<std::int32_t> encodeDocument(const text::Tokenizer& tokenizer, const std::string& textValue) {
    std::vector<text::TokenId> ids = tokenizer.encode(textValue);
    std::vector<std::int32_t> out(ids.begin(), ids.end());
    out.push_back(tokenizer.vocabulary().eos);  // document boundary inside concatenated streams
    return out;
}

std::vector<double> toVector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

// The tokenizer of the newest finished proxies run: the one the mixture stage just used.
struct StoredTokenizer {
    project::ModelRecord record;
    text::Tokenizer tokenizer;
};

Result<StoredTokenizer> newestTokenizer(project::ProjectFile& project) {
    auto runs = project.runs();
    if (!runs) return runs.error();
    std::optional<project::ModelRecord> record;
    for (auto it = runs->rbegin(); it != runs->rend() && !record; ++it) {
        if (it->method != "text-proxies" || it->status != project::RunStatus::Done) continue;
        auto models = project.models(it->id);
        if (!models) return models.error();
        for (const auto& m : *models)
            if (m.name == "tokenizer") record = m;
    }
    if (!record)
        return Error{"token export: no finished text-proxies run with a stored tokenizer in " +
                     project.path().string()};
    auto bytes = project.loadModel(*record);
    if (!bytes) return bytes.error();
    auto tokenizer = text::loadTokenizer(std::move(bytes).value());
    if (!tokenizer) return Error{"token export: the stored tokenizer: " + tokenizer.error().message};
    return StoredTokenizer{*record, std::move(tokenizer).value()};
}

// Every mixture component's public documents as one token stream; returns the sensitive source.
Result<const project::SourceRecord*> encodePublicDomains(const project::ProjectSpec& spec,
                                                         const std::vector<project::SourceRecord>& sources,
                                                         const text::Tokenizer& tokenizer,
                                                         text_tokens::TokenCache& cache,
                                                         const CancellationToken& cancel) {
    cache.publicDomains.resize(cache.domains.size());
    std::vector<bool> filled(cache.domains.size(), false);
    const project::SourceRecord* sensitive = nullptr;
    for (const auto& s : sources) {
        if (s.role == project::SourceRole::Sensitive) sensitive = &s;
        if (s.role != project::SourceRole::Public) continue;
        auto at = std::find(cache.domains.begin(), cache.domains.end(), s.name);
        if (at == cache.domains.end()) continue;  // not a mixture component of this study
        throwIfCancelled(cancel);
        auto corpus = loadTextRecord(spec, s);
        if (!corpus) return corpus.error();
        const auto i = static_cast<std::size_t>(at - cache.domains.begin());
        for (const auto& d : corpus->documents)
            if (!d.text.empty()) cache.publicDomains[i].add(encodeDocument(tokenizer, d.text));
        filled[i] = true;
    }
    for (std::size_t i = 0; i < filled.size(); ++i)
        if (!filled[i])
            return Error{"token export: the mixture component '" + cache.domains[i] +
                         "' is not a public source of the project"};
    if (!sensitive) return Error{"token export: the project has no sensitive source"};
    return sensitive;
}

// The sensitive corpus as one token stream with each document's user (users sorted, indexed).
Result<std::map<std::string, std::int32_t>> encodeSensitive(const project::ProjectSpec& spec,
                                                            const project::SourceRecord& sensitive,
                                                            const text::Tokenizer& tokenizer,
                                                            text_tokens::TokenCache& cache,
                                                            const CancellationToken& cancel) {
    cache.task = sensitive.name;
    auto mail = loadTextRecord(spec, sensitive);
    if (!mail) return mail.error();
    std::map<std::string, std::int32_t> userIndex;
    for (const auto& d : mail->documents) userIndex.emplace(d.user, 0);
    for (auto& [user, index] : userIndex) {
        index = static_cast<std::int32_t>(cache.users.size());
        cache.users.push_back(user);
    }
    for (const auto& d : mail->documents) {
        throwIfCancelled(cancel);
        cache.sensitive.add(encodeDocument(tokenizer, d.text));
        cache.documentUser.push_back(userIndex.at(d.user));
    }
    return userIndex;
}

// Each seed's splits (as user indices) and the λ's the mixture stage chose.
Status addSeedMixtures(const project::ProjectSpec& spec, const TextStudyReport& report,
                       const std::map<std::string, std::int32_t>& userIndex, text_tokens::TokenCache& cache) {
    auto indicesOf = [&](const std::vector<std::string>& ids) -> Result<std::vector<std::int32_t>> {
        std::vector<std::int32_t> out;
        for (const auto& id : ids) {
            auto it = userIndex.find(id);
            if (it == userIndex.end())
                return Error{"token export: user '" + id + "' of a split is not in the sensitive corpus"};
            out.push_back(it->second);
        }
        return out;
    };
    auto test = indicesOf(report.testUserIds);
    if (!test) return test.error();
    cache.testUsers = std::move(test).value();
    for (std::size_t i = 0; i < report.study.mixtures.size(); ++i) {
        const auto& m = report.study.mixtures[i];
        const auto& details = report.seeds.at(i);
        text_tokens::SeedMixtures s;
        s.seed = m.seed;
        auto a = indicesOf(details.userIdsA);
        if (!a) return a.error();
        auto b = indicesOf(details.userIdsB);
        if (!b) return b.error();
        s.usersA = std::move(a).value();
        s.usersB = std::move(b).value();
        s.lambdaStar = toVector(m.outcome.lambdaStar);
        s.lambdaUniform = toVector(m.outcome.lambdaUniform);
        s.lambdaRandomSearch = toVector(m.outcome.lambdaRandomSearch);
        for (const auto& p : m.outcome.privateLambdas) {
            privacy::Ledger ledger(spec.privacy.composition);
            ledger.record(p.ledgerEntry);
            s.privateLambdas.push_back({p.epsilon, toVector(p.lambda), privacy::ledgerToJson(ledger)});
        }
        cache.seeds.push_back(std::move(s));
    }
    return std::nullopt;
}

}  // namespace

Result<text_tokens::TokenCache> buildTokenCache(project::ProjectFile& project, const TextStudyReport& report,
                                                const CancellationToken& cancel) {
    const auto& spec = project.spec();
    if (!spec.sensitive.userLevel)
        return Error{
            "token export: the downstream language-model stages need a user-level study "
            "(sensitive.user_level = true), and '" +
            project.path().string() + "' is example level"};
    if (report.study.mixtures.empty())
        return Error{"token export: the mixture stage did not run, so there is no lambda to pretrain on"};
    auto stored = newestTokenizer(project);
    if (!stored) return stored.error();
    const text::Tokenizer& tokenizer = stored->tokenizer;

    text_tokens::TokenCache cache;
    cache.tokenizerSha256 = stored->record.contentHash;
    cache.vocabulary = tokenizer.vocabulary().size;
    cache.eos = tokenizer.vocabulary().eos;
    cache.domains = report.study.componentNames;
    auto sources = project.sources();
    if (!sources) return sources.error();
    auto sensitive = encodePublicDomains(spec, *sources, tokenizer, cache, cancel);
    if (!sensitive) return sensitive.error();
    auto userIndex = encodeSensitive(spec, **sensitive, tokenizer, cache, cancel);
    if (!userIndex) return userIndex.error();
    if (auto e = addSeedMixtures(spec, report, *userIndex, cache)) return *e;
    if (auto e = text_tokens::checkTokenCache(cache)) return *e;
    return cache;
}

}  // namespace dpmix::text_study
