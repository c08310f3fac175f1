#pragma once
// Small generated text fixtures for the engine/text tests: sentences drawn from a domain's own
// word list (fixed generator), so two domains share no words and a target drawn from one domain
// is clearly "in" it.
#include "engine/data/source_loader.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace dpmix::text::testing {

inline const std::vector<std::string>& petWords() {
    static const std::vector<std::string> words{
        "the",   "cat",    "dog",   "sleeps", "on",   "a",     "warm",  "mat",  "and",    "barks", "at",      "small",
        "birds", "kitten", "plays", "with",   "yarn", "puppy", "chews", "bone", "garden", "sunny", "morning", "purrs"};
    return words;
}

inline const std::vector<std::string>& codeWords() {
    static const std::vector<std::string> words{"int",    "main",   "return",  "void",    "struct", "pointer",
                                                "malloc", "free",   "include", "stdio",   "printf", "buffer",
                                                "size_t", "const",  "char",    "while",   "for",    "break",
                                                "static", "inline", "header",  "compile", "linker", "symbol"};
    return words;
}

/// `count` documents of 2–4 sentences, each sentence 4–12 words of `words`, ending with ".".
inline std::vector<std::string> generateDocuments(const std::vector<std::string>& words, int count,
                                                  std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::vector<std::string> docs;
    for (int d = 0; d < count; ++d) {
        std::string text;
        const int sentences = 2 + static_cast<int>(gen() % 3);
        for (int s = 0; s < sentences; ++s) {
            const int length = 4 + static_cast<int>(gen() % 9);
            for (int w = 0; w < length; ++w) {
                if (!text.empty()) text += ' ';
                text += words[gen() % words.size()];
            }
            text += '.';
        }
        docs.push_back(std::move(text));
    }
    return docs;
}

inline data::TextCorpus twoDomainCorpus(int documentsPerDomain, std::uint64_t seed) {
    data::TextCorpus corpus;
    for (auto& text : generateDocuments(petWords(), documentsPerDomain, seed))
        corpus.documents.push_back({std::move(text), "pets", ""});
    for (auto& text : generateDocuments(codeWords(), documentsPerDomain, seed + 1))
        corpus.documents.push_back({std::move(text), "code", ""});
    return corpus;
}

}  // namespace dpmix::text::testing
