#pragma once
// The token bridge between the two processes of a text study. dpmix-text (sentencepiece, no
// LibTorch) tokenises the corpora and writes them, with what the mixture stage chose, into a
// cache folder next to the project (<project>.tokens/, git-ignored); dpmix (LibTorch, no
// sentencepiece) reads it to pretrain and fine-tune the transformer. Plain C++: no torch, no
// sentencepiece, so both processes link it (library dpmix_text_tokens).
//
// Folder layout (format "dpmix-tokens/1"):
//   index.json                  everything below except the token arrays
//   public-<i>.tokens/.offsets  domain i: int32 token ids, int64 document offsets (documents+1)
//   sensitive.tokens/.offsets   the sensitive corpus, documents in source order
//   sensitive.users             int32 per sensitive document: index into index.json "users"
// Each document's tokens end with the tokenizer's EOS id. Arrays are native-endian (the cache is
// read back on the machine that wrote it).
#include "engine/core/result.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dpmix::text_tokens {

struct TokenCorpus {
    std::vector<std::int32_t> tokens;
    std::vector<std::int64_t> offsets{0};  // document d = tokens[offsets[d], offsets[d+1])
    std::size_t documents() const { return offsets.size() - 1; }
    std::span<const std::int32_t> document(std::size_t d) const {
        return {tokens.data() + offsets[d], static_cast<std::size_t>(offsets[d + 1] - offsets[d])};
    }
    void add(const std::vector<std::int32_t>& document);
};

/// What the mixture stage chose for one run seed.
struct SeedMixtures {
    std::uint64_t seed = 0;
    std::vector<std::int32_t> usersA, usersB;  // indices into TokenCache::users
    std::vector<double> lambdaStar, lambdaUniform, lambdaRandomSearch;
    struct Private {
        double epsilon = 0.0;
        std::vector<double> lambda;
        std::string ledgerJson;  // the DP-MixMin mechanism's ledger (privacy/ledger_json.h)
    };
    std::vector<Private> privateLambdas;
};

struct TokenCache {
    std::string task;             // the sensitive source's name
    std::string tokenizerSha256;  // hex SHA-256 of the serialized tokenizer used
    int vocabulary = 0;
    int eos = 2;
    std::vector<std::string> domains;  // mixture components, λ order
    std::vector<TokenCorpus> publicDomains;
    std::vector<std::string> users;  // sensitive user ids, sorted
    TokenCorpus sensitive;
    std::vector<std::int32_t> documentUser;
    std::vector<std::int32_t> testUsers;  // indices into users
    std::vector<SeedMixtures> seeds;

    /// One stream per listed user: that user's documents concatenated in corpus order.
    std::vector<std::vector<std::int32_t>> userStreams(const std::vector<std::int32_t>& userIndices) const;
};

/// <project path>.tokens
std::filesystem::path tokenCacheDir(const std::filesystem::path& projectPath);

/// Checks the cache's internal consistency (sizes, offsets, indices, token ids < vocabulary).
Status checkTokenCache(const TokenCache& cache);

/// Writes into a temporary folder beside `dir` and then replaces `dir`, so a failed write
/// leaves an existing cache unchanged.
Status writeTokenCache(const std::filesystem::path& dir, const TokenCache& cache);

/// Reads and checks a cache; an error names the file and what is wrong with it.
Result<TokenCache> readTokenCache(const std::filesystem::path& dir);

}  // namespace dpmix::text_tokens
