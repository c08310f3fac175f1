#pragma once
// The one sentencepiece tokenizer the domain proxies share, trained on a sample of all public
// domains (training_sample.h). Deterministic for fixed options (seed and thread count included):
// the sample is chosen by our own seeded generator in a fixed order, sentencepiece's input
// shuffling is off and its generator is seeded.
//
// Normalisation is sentencepiece's "nmt_nfkc" (NFKC, control characters and newlines become
// spaces, runs of spaces collapse, no leading/trailing space), with byte fallback on: a character
// outside the vocabulary is encoded as its UTF-8 bytes, so decode(encode(s)) == s for every
// normalised UTF-8 string s. The model is held as sentencepiece's serialized proto, which is what
// a project stores.
#include "engine/core/cancellation.h"
#include "engine/core/result.h"
#include "engine/text/language_model.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace dpmix::text {

enum class TokenizerModel { Unigram, Bpe };

struct TokenizerOptions {
    int vocabularySize = 8000;  // target size; smaller if the sample cannot support it
    TokenizerModel model = TokenizerModel::Unigram;
    double characterCoverage = 0.9995;  // rarer characters go through byte fallback
    std::uint64_t seed = 1;
    int threads = 2;  // sentencepiece's threads; part of the recipe: the trained model
                      // depends on it (EM sums are split by thread), so never default it
                      // to the machine's core count
};

Result<TokenizerModel> parseTokenizerModel(const std::string& name);  // "unigram" | "bpe"

class Tokenizer {
public:
    /// Token ids of a text (no BOS/EOS). Thread-safe.
    std::vector<TokenId> encode(std::string_view text) const;
    std::string decode(std::span<const TokenId> ids) const;
    std::vector<std::string> pieces(std::string_view text) const;
    /// size = number of pieces; bos/eos are sentencepiece's <s> and </s>.
    const Vocabulary& vocabulary() const { return vocabulary_; }
    /// sentencepiece's ModelProto, serialized: save this to reload the identical tokenizer.
    const std::string& serializedModel() const { return serialized_; }

private:
    friend Result<Tokenizer> loadTokenizer(std::string serializedModel);
    std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor_;
    std::string serialized_;
    Vocabulary vocabulary_;
};

/// Trains on `sentences` (one training sentence each; see training_sample.h), in the given order.
/// Errors name the option and value, or repeat sentencepiece's message.
Result<Tokenizer> trainTokenizer(const std::vector<std::string>& sentences, const TokenizerOptions& options = {},
                                 const CancellationToken& cancel = {});

/// Loads a tokenizer from serializedModel() bytes.
Result<Tokenizer> loadTokenizer(std::string serializedModel);

/// Saves / loads the serialized model to / from a file. Saving writes a temporary file beside the
/// target and renames it, so a failed save leaves any existing file unchanged.
Status saveTokenizerFile(const Tokenizer& tokenizer, const std::string& path);
Result<Tokenizer> loadTokenizerFile(const std::string& path);

}  // namespace dpmix::text
