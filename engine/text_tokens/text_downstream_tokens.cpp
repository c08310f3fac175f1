#include "engine/text_tokens/text_downstream_tokens.h"

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <fstream>

namespace dpmix::text_tokens {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kFormat = "dpmix-tokens/1";

template <typename T>
Status writeArray(const fs::path& file, const std::vector<T>& values) {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
    out.close();
    if (!out) return Error{"token cache: cannot write " + file.string()};
    return std::nullopt;
}

template <typename T>
Result<std::vector<T>> readArray(const fs::path& file, std::size_t expectedCount) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec) return Error{"token cache: " + file.string() + " is missing or unreadable (" + ec.message() + ")"};
    if (size != expectedCount * sizeof(T))
        return Error{"token cache: " + file.string() + " has " + std::to_string(size) + " bytes, expected " +
                     std::to_string(expectedCount * sizeof(T)) + " (" + std::to_string(expectedCount) + " values of " +
                     std::to_string(sizeof(T)) + " bytes, as index.json says)"};
    std::vector<T> values(expectedCount);
    std::ifstream in(file, std::ios::binary);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(size));
    if (!in) return Error{"token cache: cannot read " + file.string()};
    return values;
}

Status checkCorpus(const TokenCorpus& c, const std::string& name, int vocabulary) {
    if (c.offsets.empty() || c.offsets.front() != 0)
        return Error{"token cache: " + name + ".offsets must start with 0"};
    for (std::size_t d = 0; d + 1 < c.offsets.size(); ++d)
        if (c.offsets[d + 1] < c.offsets[d])
            return Error{"token cache: " + name + ".offsets decreases at document " + std::to_string(d) +
                         ": expected non-decreasing offsets"};
    if (c.offsets.back() != static_cast<std::int64_t>(c.tokens.size()))
        return Error{"token cache: " + name + ".offsets ends at " + std::to_string(c.offsets.back()) + " but " + name +
                     ".tokens holds " + std::to_string(c.tokens.size()) + " tokens"};
    for (std::size_t i = 0; i < c.tokens.size(); ++i)
        if (c.tokens[i] < 0 || c.tokens[i] >= vocabulary)
            return Error{"token cache: " + name + ".tokens holds id " + std::to_string(c.tokens[i]) + " at position " +
                         std::to_string(i) + ", outside the vocabulary 0.." + std::to_string(vocabulary - 1)};
    return std::nullopt;
}

Status checkUserList(const std::vector<std::int32_t>& list, std::size_t users, const std::string& what) {
    for (auto u : list)
        if (u < 0 || static_cast<std::size_t>(u) >= users)
            return Error{"token cache: index.json " + what + " lists user " + std::to_string(u) + ", but there are " +
                         std::to_string(users) + " users"};
    return std::nullopt;
}

}  // namespace

void TokenCorpus::add(const std::vector<std::int32_t>& document) {
    tokens.insert(tokens.end(), document.begin(), document.end());
    offsets.push_back(static_cast<std::int64_t>(tokens.size()));
}

std::vector<std::vector<std::int32_t>> TokenCache::userStreams(const std::vector<std::int32_t>& userIndices) const {
    std::vector<std::int32_t> slot(users.size(), -1);
    for (std::size_t i = 0; i < userIndices.size(); ++i)
        slot[static_cast<std::size_t>(userIndices[i])] = static_cast<std::int32_t>(i);
    std::vector<std::vector<std::int32_t>> out(userIndices.size());
    for (std::size_t d = 0; d < sensitive.documents(); ++d) {
        const auto s = slot[static_cast<std::size_t>(documentUser[d])];
        if (s < 0) continue;
        auto doc = sensitive.document(d);
        out[static_cast<std::size_t>(s)].insert(out[static_cast<std::size_t>(s)].end(), doc.begin(), doc.end());
    }
    return out;
}

fs::path tokenCacheDir(const fs::path& projectPath) { return fs::path(projectPath.string() + ".tokens"); }

Status checkTokenCache(const TokenCache& c) {
    if (c.vocabulary < 1) return Error{"token cache: vocabulary = " + std::to_string(c.vocabulary) + ", expected >= 1"};
    if (c.domains.size() != c.publicDomains.size() || c.domains.size() < 1)
        return Error{"token cache: " + std::to_string(c.domains.size()) + " domain names for " +
                     std::to_string(c.publicDomains.size()) + " public corpora"};
    for (std::size_t i = 0; i < c.publicDomains.size(); ++i)
        if (auto e = checkCorpus(c.publicDomains[i], "public-" + std::to_string(i), c.vocabulary)) return e;
    if (auto e = checkCorpus(c.sensitive, "sensitive", c.vocabulary)) return e;
    if (c.documentUser.size() != c.sensitive.documents())
        return Error{"token cache: sensitive.users has " + std::to_string(c.documentUser.size()) + " entries for " +
                     std::to_string(c.sensitive.documents()) + " documents"};
    if (auto e = checkUserList(c.documentUser, c.users.size(), "sensitive.users")) return e;
    if (auto e = checkUserList(c.testUsers, c.users.size(), "test_users")) return e;
    const std::size_t k = c.domains.size();
    for (const auto& s : c.seeds) {
        const std::string where = "seed " + std::to_string(s.seed);
        if (auto e = checkUserList(s.usersA, c.users.size(), where + " users_a")) return e;
        if (auto e = checkUserList(s.usersB, c.users.size(), where + " users_b")) return e;
        bool sizesOk = s.lambdaStar.size() == k && s.lambdaUniform.size() == k && s.lambdaRandomSearch.size() == k;
        for (const auto& p : s.privateLambdas) sizesOk = sizesOk && p.lambda.size() == k;
        if (!sizesOk)
            return Error{"token cache: index.json " + where + ": a lambda does not have one weight per domain (" +
                         std::to_string(k) + ")"};
    }
    return std::nullopt;
}

Status writeTokenCache(const fs::path& dir, const TokenCache& c) {
    if (auto e = checkTokenCache(c)) return e;
    const fs::path tmp = fs::path(dir.string() + ".tmp-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove_all(tmp, ec);
    if (!fs::create_directories(tmp, ec) || ec)
        return Error{"token cache: cannot create " + tmp.string() + ": " + ec.message()};
    auto fail = [&](Error e) {
        fs::remove_all(tmp, ec);
        return Status(std::move(e));
    };
    json domains = json::array();
    for (std::size_t i = 0; i < c.publicDomains.size(); ++i) {
        const std::string base = "public-" + std::to_string(i);
        if (auto e = writeArray(tmp / (base + ".tokens"), c.publicDomains[i].tokens)) return fail(*e);
        if (auto e = writeArray(tmp / (base + ".offsets"), c.publicDomains[i].offsets)) return fail(*e);
        domains.push_back({{"name", c.domains[i]},
                           {"file", base},
                           {"documents", c.publicDomains[i].documents()},
                           {"tokens", c.publicDomains[i].tokens.size()}});
    }
    if (auto e = writeArray(tmp / "sensitive.tokens", c.sensitive.tokens)) return fail(*e);
    if (auto e = writeArray(tmp / "sensitive.offsets", c.sensitive.offsets)) return fail(*e);
    if (auto e = writeArray(tmp / "sensitive.users", c.documentUser)) return fail(*e);
    json seeds = json::array();
    for (const auto& s : c.seeds) {
        json priv = json::array();
        for (const auto& p : s.privateLambdas)
            priv.push_back({{"epsilon", p.epsilon}, {"lambda", p.lambda}, {"ledger", json::parse(p.ledgerJson)}});
        seeds.push_back({{"seed", s.seed},
                         {"users_a", s.usersA},
                         {"users_b", s.usersB},
                         {"lambda_star", s.lambdaStar},
                         {"lambda_uniform", s.lambdaUniform},
                         {"lambda_random_search", s.lambdaRandomSearch},
                         {"private", priv}});
    }
    json index{{"format", kFormat},
               {"task", c.task},
               {"tokenizer_sha256", c.tokenizerSha256},
               {"vocabulary", c.vocabulary},
               {"eos", c.eos},
               {"domains", domains},
               {"sensitive", {{"documents", c.sensitive.documents()}, {"tokens", c.sensitive.tokens.size()}}},
               {"users", c.users},
               {"test_users", c.testUsers},
               {"seeds", seeds}};
    {
        std::ofstream out(tmp / "index.json");
        out << index.dump(1) << '\n';
        out.close();
        if (!out) return fail(Error{"token cache: cannot write " + (tmp / "index.json").string()});
    }
    fs::remove_all(dir, ec);
    fs::rename(tmp, dir, ec);
    if (ec)
        return fail(Error{"token cache: cannot move " + tmp.string() + " to " + dir.string() + ": " + ec.message()});
    return std::nullopt;
}

Result<TokenCache> readTokenCache(const fs::path& dir) {
    const fs::path indexFile = dir / "index.json";
    std::ifstream in(indexFile);
    if (!in)
        return Error{"token cache: " + indexFile.string() +
                     " is missing: run the text study's mixture stage with `dpmix-text run PROJECT --export-tokens` "
                     "(dpmix run does it for the pretrain/finetune stages)"};
    TokenCache c;
    try {
        json index = json::parse(in);
        if (index.value("format", std::string()) != kFormat)
            return Error{"token cache: " + indexFile.string() + " has format '" + index.value("format", std::string()) +
                         "', expected '" + kFormat + "'"};
        c.task = index.at("task").get<std::string>();
        c.tokenizerSha256 = index.at("tokenizer_sha256").get<std::string>();
        c.vocabulary = index.at("vocabulary").get<int>();
        c.eos = index.at("eos").get<int>();
        c.users = index.at("users").get<std::vector<std::string>>();
        c.testUsers = index.at("test_users").get<std::vector<std::int32_t>>();
        for (const auto& d : index.at("domains")) {
            c.domains.push_back(d.at("name").get<std::string>());
            const std::string base = d.at("file").get<std::string>();
            TokenCorpus corpus;
            auto tokens = readArray<std::int32_t>(dir / (base + ".tokens"), d.at("tokens").get<std::size_t>());
            if (!tokens) return tokens.error();
            auto offsets = readArray<std::int64_t>(dir / (base + ".offsets"), d.at("documents").get<std::size_t>() + 1);
            if (!offsets) return offsets.error();
            corpus.tokens = std::move(tokens).value();
            corpus.offsets = std::move(offsets).value();
            c.publicDomains.push_back(std::move(corpus));
        }
        const auto& s = index.at("sensitive");
        const auto docs = s.at("documents").get<std::size_t>();
        auto tokens = readArray<std::int32_t>(dir / "sensitive.tokens", s.at("tokens").get<std::size_t>());
        if (!tokens) return tokens.error();
        auto offsets = readArray<std::int64_t>(dir / "sensitive.offsets", docs + 1);
        if (!offsets) return offsets.error();
        auto users = readArray<std::int32_t>(dir / "sensitive.users", docs);
        if (!users) return users.error();
        c.sensitive.tokens = std::move(tokens).value();
        c.sensitive.offsets = std::move(offsets).value();
        c.documentUser = std::move(users).value();
        for (const auto& j : index.at("seeds")) {
            SeedMixtures m;
            m.seed = j.at("seed").get<std::uint64_t>();
            m.usersA = j.at("users_a").get<std::vector<std::int32_t>>();
            m.usersB = j.at("users_b").get<std::vector<std::int32_t>>();
            m.lambdaStar = j.at("lambda_star").get<std::vector<double>>();
            m.lambdaUniform = j.at("lambda_uniform").get<std::vector<double>>();
            m.lambdaRandomSearch = j.at("lambda_random_search").get<std::vector<double>>();
            for (const auto& p : j.at("private"))
                m.privateLambdas.push_back(
                    {p.at("epsilon").get<double>(), p.at("lambda").get<std::vector<double>>(), p.at("ledger").dump()});
            c.seeds.push_back(std::move(m));
        }
    } catch (const json::exception& e) {
        return Error{"token cache: " + indexFile.string() + " is malformed: " + e.what()};
    }
    if (auto e = checkTokenCache(c)) return *e;
    return c;
}

}  // namespace dpmix::text_tokens
