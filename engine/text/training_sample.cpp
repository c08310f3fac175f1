#include "engine/text/training_sample.h"

#include "engine/core/seed_derivation.h"
#include "engine/data/portable_random.h"

#include <algorithm>
#include <map>

namespace dpmix::text {
namespace {

// Longest prefix of at most `limit` bytes that does not split a UTF-8 character.
std::size_t utf8Prefix(const std::string& s, std::size_t limit) {
    if (s.size() <= limit) return s.size();
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return end;
}

bool isBlank(const std::string& line) {
    return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

}  // namespace

std::vector<std::string> corpusDomains(const data::TextCorpus& corpus) {
    std::vector<std::string> domains;
    for (const auto& doc : corpus.documents) domains.push_back(doc.domain);
    std::sort(domains.begin(), domains.end());
    domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
    return domains;
}

std::vector<std::string> tokenizerTrainingSample(const data::TextCorpus& corpus, const TrainingSampleOptions& options) {
    std::map<std::string, std::vector<std::size_t>> byDomain;
    for (std::size_t i = 0; i < corpus.documents.size(); ++i) byDomain[corpus.documents[i].domain].push_back(i);

    std::vector<std::string> sentences;
    std::uint64_t domainIndex = 0;
    for (auto& [domain, docs] : byDomain) {
        std::mt19937_64 gen(seeds::mix(options.seed, domainIndex++));
        data::portableShuffle(docs, gen);
        std::size_t taken = 0;
        for (const std::size_t d : docs) {
            if (taken >= options.bytesPerDomain) break;
            const std::string& text = corpus.documents[d].text;
            std::size_t start = 0;
            while (start <= text.size() && taken < options.bytesPerDomain) {
                std::size_t end = text.find('\n', start);
                if (end == std::string::npos) end = text.size();
                std::string line = text.substr(start, end - start);
                start = end + 1;
                if (isBlank(line)) continue;
                line.resize(utf8Prefix(line, options.maxSentenceBytes));
                taken += line.size();
                sentences.push_back(std::move(line));
            }
        }
    }
    return sentences;
}

}  // namespace dpmix::text
