// Benchmark: the mail study's LM proxies on this machine. Builds the shared sentencepiece
// tokenizer and one modified Kneser–Ney proxy per public text domain (data/text/*.jsonl, the 10
// largest), then scores mails (SpamAssassin ham) into the LM mixture-objective inputs, solves
// non-private MixMin on them and reports the times.
//   build/bin/bench_text [data dir = <source>/data] [mails = 1000] [vocab = 8000] [order = 3]
//                        [tokenizer sample bytes per domain = 1048576]
#include "engine/data/source_loader.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/objective.h"
#include "engine/text/domain_proxies.h"
#include "engine/text/lm_mixture_inputs.h"
#include "engine/text/perplexity.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>

namespace fs = std::filesystem;
using namespace dpmix;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Process CPU seconds (all threads): the machine may be shared, so wall time alone misleads.
double cpuSeconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// The public text: the 10 largest data/text/*.jsonl files, one domain each (nothing, after a
// message, when there are none or one does not load).
std::optional<data::TextCorpus> loadPublicText(const fs::path& dataDir) {
    std::vector<std::pair<std::uintmax_t, fs::path>> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dataDir / "text", ec))
        if (entry.path().extension() == ".jsonl") files.emplace_back(entry.file_size(), entry.path());
    if (files.empty()) {
        std::fprintf(stderr, "no %s/text/*.jsonl: run scripts/fetch-data.sh first\n", dataDir.c_str());
        return std::nullopt;
    }
    std::sort(files.rbegin(), files.rend());
    files.resize(std::min<std::size_t>(files.size(), 10));

    auto t0 = std::chrono::steady_clock::now();
    data::TextCorpus publicText;
    std::uintmax_t publicBytes = 0;
    for (const auto& [size, path] : files) {
        auto corpus =
            data::loadTextSource({path.stem().string(), "jsonl", path.string(), {{"domain", path.stem().string()}}});
        if (!corpus) {
            std::fprintf(stderr, "%s\n", corpus.error().message.c_str());
            return std::nullopt;
        }
        for (auto& doc : corpus->documents) {
            publicBytes += doc.text.size();
            publicText.documents.push_back(std::move(doc));
        }
    }
    std::printf("public text: %zu domains, %zu documents, %.1f MB, loaded in %.2f s\n", files.size(),
                publicText.documents.size(), publicBytes / 1e6, secondsSince(t0));
    return publicText;
}

// Non-private MixMin on the mails' sequence likelihoods, its λ* and the mixture perplexities.
void reportMixMin(const text::DomainProxies& proxies, const text::LmMixtureInputs& inputs) {
    const auto t0 = std::chrono::steady_clock::now();
    auto objective = mixmin::makeSequenceObjective(inputs.logLikelihoods, inputs.tokenCounts);
    auto solution = mixmin::solveNonPrivateMixMin(*objective);
    std::printf("non-private MixMin (sequence form): %.2f s, %lld iterations\n", secondsSince(t0),
                solution ? solution->iterations : -1);
    if (solution) {
        for (std::size_t i = 0; i < proxies.size(); ++i)
            std::printf("  λ*[%s] = %.3f\n", proxies.domains()[i].c_str(),
                        solution->lambda[static_cast<Eigen::Index>(i)]);
        const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(proxies.size()),
                                                                  1.0 / static_cast<double>(proxies.size()));
        std::printf("mixture perplexity on the mails: λ* %.1f, uniform λ %.1f\n",
                    *text::mixturePerplexity(inputs, solution->lambda), *text::mixturePerplexity(inputs, uniform));
    }
}

}  // namespace

int main(int argc, char** argv) {
    const fs::path dataDir = argc > 1 ? fs::path(argv[1]) : fs::path(DPMIX_SOURCE_DIR) / "data";
    const std::size_t mails = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1000;
    text::DomainProxyOptions options;
    options.tokenizer.vocabularySize = argc > 3 ? std::atoi(argv[3]) : 8000;
    options.ngram.order = argc > 4 ? std::atoi(argv[4]) : 3;
    if (argc > 5) options.tokenizerSample.bytesPerDomain = std::strtoul(argv[5], nullptr, 10);

    auto publicText = loadPublicText(dataDir);
    if (!publicText) return 1;
    auto mailSpec = data::SourceSpec{"mail",
                                     "spam-assassin",
                                     (dataDir / "email" / "spam-assassin").string(),
                                     {{"groups", "easy-ham-1,easy-ham-2,hard-ham-1"}}};
    auto mailResult = data::loadTextSource(mailSpec);
    if (!mailResult) {
        std::fprintf(stderr, "%s\n", mailResult.error().message.c_str());
        return 1;
    }
    data::TextCorpus mailCorpus = std::move(mailResult).value();
    auto* mail = &mailCorpus;
    if (mail->documents.size() > mails) mail->documents.resize(mails);
    std::printf("mails: %zu (SpamAssassin ham, bodies)\n", mail->documents.size());

    auto t0 = std::chrono::steady_clock::now();
    double tokenizerSeconds = 0.0, tokenizerCpu = 0.0;
    double cpu0 = cpuSeconds();
    auto proxies = text::buildDomainProxies(*publicText, options, [&](const ProgressEvent& e) {
        if (e.message == "tokenizer ready") {
            tokenizerSeconds = secondsSince(t0);
            tokenizerCpu = cpuSeconds() - cpu0;
        }
    });
    const double buildSeconds = secondsSince(t0), buildCpu = cpuSeconds() - cpu0;
    if (!proxies) {
        std::fprintf(stderr, "%s\n", proxies.error().message.c_str());
        return 1;
    }
    std::printf(
        "tokenizer (vocab %d, sample %zu B/domain): %.1f s wall (%.1f s CPU); %zu KN-%d proxies (tokenize + count): "
        "%.1f s wall "
        "(%.1f s CPU); total %.1f s wall\n",
        proxies->tokenizer().vocabulary().size, options.tokenizerSample.bytesPerDomain, tokenizerSeconds, tokenizerCpu,
        proxies->size(), options.ngram.order, buildSeconds - tokenizerSeconds, buildCpu - tokenizerCpu, buildSeconds);

    t0 = std::chrono::steady_clock::now();
    cpu0 = cpuSeconds();
    text::LmInputOptions inputOptions;  // cap 256 positions per mail
    inputOptions.userLevel = true;
    auto inputs = text::computeLmMixtureInputs(*proxies, mail->documents, inputOptions);
    const double scoreSeconds = secondsSince(t0), scoreCpu = cpuSeconds() - cpu0;
    if (!inputs) {
        std::fprintf(stderr, "%s\n", inputs.error().message.c_str());
        return 1;
    }
    std::printf("scored %zu mails (%lld positions, cap 256) under %zu proxies: %.2f s wall (%.2f s CPU); %lld users\n",
                inputs->documents.size(), static_cast<long long>(inputs->tokenProbabilities.rows()), proxies->size(),
                scoreSeconds, scoreCpu, static_cast<long long>(inputs->users->users()));

    reportMixMin(*proxies, *inputs);
    return 0;
}
