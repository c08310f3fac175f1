#include "engine/text/tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace dpmix::text {
namespace {

// Feeds our in-memory sample to the trainer (no temporary files) and stops it on cancellation.
class VectorSentenceIterator final : public sentencepiece::SentenceIterator {
public:
    VectorSentenceIterator(const std::vector<std::string>& sentences, const CancellationToken& cancel)
        : sentences_(sentences), cancel_(cancel) {}
    bool done() const override { return index_ >= sentences_.size() || cancel_.isCancelled(); }
    void Next() override { ++index_; }
    const std::string& value() const override { return sentences_[index_]; }
    sentencepiece::util::Status status() const override { return {}; }

private:
    const std::vector<std::string>& sentences_;
    CancellationToken cancel_;
    std::size_t index_ = 0;
};

}  // namespace

Result<TokenizerModel> parseTokenizerModel(const std::string& name) {
    if (name == "unigram") return TokenizerModel::Unigram;
    if (name == "bpe") return TokenizerModel::Bpe;
    return Error{"tokenizer model: got \"" + name + "\", expected \"unigram\" or \"bpe\""};
}

std::vector<TokenId> Tokenizer::encode(std::string_view text) const {
    std::vector<int> ids;
    processor_->Encode(text, &ids).IgnoreError();  // errors only when no model is loaded
    return ids;
}

std::string Tokenizer::decode(std::span<const TokenId> ids) const {
    std::string text;
    processor_->Decode(std::vector<int>(ids.begin(), ids.end()), &text).IgnoreError();
    return text;
}

std::vector<std::string> Tokenizer::pieces(std::string_view text) const {
    std::vector<std::string> out;
    processor_->Encode(text, &out).IgnoreError();
    return out;
}

Result<Tokenizer> trainTokenizer(const std::vector<std::string>& sentences, const TokenizerOptions& options,
                                 const CancellationToken& cancel) {
    if (options.vocabularySize < 300 || options.vocabularySize > 65536)
        return Error{"tokenizer vocabulary size: got " + std::to_string(options.vocabularySize) +
                     ", expected 300 to 65536 (byte fallback alone needs 259 ids)"};
    if (!(options.characterCoverage > 0.9 && options.characterCoverage <= 1.0))
        return Error{"tokenizer character coverage: got " + std::to_string(options.characterCoverage) +
                     ", expected a value in (0.9, 1]"};
    if (options.threads < 1 || options.threads > 64)
        return Error{"tokenizer threads: got " + std::to_string(options.threads) + ", expected 1 to 64"};
    if (sentences.empty()) return Error{"tokenizer training sample: no sentences (is the public text empty?)"};

    std::ostringstream coverage;
    coverage.precision(17);
    coverage << options.characterCoverage;
    const std::unordered_map<std::string, std::string> args{
        {"model_type", options.model == TokenizerModel::Bpe ? "bpe" : "unigram"},
        {"vocab_size", std::to_string(options.vocabularySize)},
        {"hard_vocab_limit", "false"},  // small samples give a smaller vocabulary instead of failing
        {"character_coverage", coverage.str()},
        {"byte_fallback", "true"},
        {"normalization_rule_name", "nmt_nfkc"},
        {"input_sentence_size", "0"},         // use every sentence we pass: we sampled already
        {"shuffle_input_sentence", "false"},  // keep our order (determinism)
        {"max_sentence_length", "16384"},
        {"num_threads", std::to_string(options.threads)},
        {"unk_id", "0"},
        {"bos_id", "1"},
        {"eos_id", "2"},
        {"pad_id", "-1"},
        {"minloglevel", "2"},  // keep sentencepiece's progress chatter off stderr
    };
    sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned>(options.seed & 0xffffffffu));
    VectorSentenceIterator iterator(sentences, cancel);
    std::string serialized;
    const auto status = sentencepiece::SentencePieceTrainer::Train(args, &iterator, &serialized);
    throwIfCancelled(cancel);
    if (!status.ok()) return Error{std::string("tokenizer training (sentencepiece): ") + status.ToString()};
    return loadTokenizer(std::move(serialized));
}

Result<Tokenizer> loadTokenizer(std::string serializedModel) {
    auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
    const auto status = processor->LoadFromSerializedProto(serializedModel);
    if (!status.ok())
        return Error{std::string("tokenizer model: not a sentencepiece model (") + status.ToString() + ")"};
    Tokenizer tokenizer;
    tokenizer.vocabulary_ = {processor->GetPieceSize(), processor->bos_id(), processor->eos_id()};
    if (tokenizer.vocabulary_.bos < 0 || tokenizer.vocabulary_.eos < 0)
        return Error{"tokenizer model: it has no <s>/</s> ids; the proxies need both"};
    tokenizer.processor_ = std::move(processor);
    tokenizer.serialized_ = std::move(serializedModel);
    return tokenizer;
}

Status saveTokenizerFile(const Tokenizer& tokenizer, const std::string& path) {
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out.write(tokenizer.serializedModel().data(), static_cast<std::streamsize>(tokenizer.serializedModel().size()));
        if (!out.flush()) {
            std::remove(temporary.c_str());
            return Error{"tokenizer file " + path + ": cannot write " + temporary};
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::remove(temporary.c_str());
        return Error{"tokenizer file " + path + ": cannot replace it (" + ec.message() + ")"};
    }
    return std::nullopt;
}

Result<Tokenizer> loadTokenizerFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"tokenizer file " + path + ": cannot open it"};
    std::ostringstream bytes;
    bytes << in.rdbuf();
    auto tokenizer = loadTokenizer(bytes.str());
    if (!tokenizer) return Error{"tokenizer file " + path + ": " + tokenizer.error().message};
    return tokenizer;
}

}  // namespace dpmix::text
