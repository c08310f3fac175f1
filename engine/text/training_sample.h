#pragma once
// The sample of public text the shared tokenizer is trained on: the same share of every domain,
// chosen by a seeded generator in a fixed order, so a run seed fixes the tokenizer.
#include "engine/data/source_loader.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::text {

struct TrainingSampleOptions {
    std::size_t bytesPerDomain = 1 << 20;  // up to this many bytes of text from each domain
    std::size_t maxSentenceBytes = 4096;   // longer lines are cut (at a UTF-8 character boundary)
    std::uint64_t seed = 1;
};

/// For each domain in sorted name order: its documents (corpus order) shuffled with
/// mt19937_64(seeds::mix(seed, domain index)), split into non-blank lines, taken until the domain's
/// byte budget is reached (the line that crosses it is included).
std::vector<std::string> tokenizerTrainingSample(const data::TextCorpus& corpus,
                                                 const TrainingSampleOptions& options = {});

/// The distinct domains of a corpus, sorted: the proxy order everywhere in engine/text.
std::vector<std::string> corpusDomains(const data::TextCorpus& corpus);

}  // namespace dpmix::text
