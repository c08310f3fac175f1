// Benchmark + runner: the mail language-modelling study's mixture stage end to end
// (engine/text_study/text_study.h) on a spec, timing it and printing, per (seed, ε), the same
// fields as `dpmix run --json` plus the λ-mixture test perplexities. A separate program because
// the text study cannot share a process with LibTorch (sentencepiece's embedded protobuf).
//   build/bin/bench_text_study SPEC.json PROJECT.dpmix [epsilons = spec's, comma-separated]
//                              [rho = spec's] [seeds = spec's, comma-separated]
//                              [tokenizer sample bytes per domain = 262144]
// PROJECT.dpmix is created from the spec (replaced if it exists).
#include "app/cli/mixture_json.h"
#include "engine/data/source_loader.h"
#include "engine/project/project_opener.h"
#include "engine/text_study/text_study.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>

using namespace dpmix;

namespace {

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream s(text);
    std::string item;
    while (std::getline(s, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

// One JSON row per (task, seed, ε): the λ's, their distances to λ*, the noise and the perplexities.
nlohmann::ordered_json tasksJson(const text_study::TextStudyReport& report) {
    nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < report.study.mixtures.size(); ++i) {
        const auto& m = report.study.mixtures[i];
        const auto& d = report.seeds[i];
        const auto& o = m.outcome;
        for (std::size_t pi = 0; pi < o.privateLambdas.size(); ++pi) {
            // The fields of `dpmix run --json` (app/cli/mixture_json.h), then the text study's own.
            nlohmann::ordered_json row = cli::privateLambdaJson(m, o.privateLambdas[pi]);
            row["users_a"] = d.usersA;
            row["users_b"] = d.usersB;
            row["perplexity_dp"] = d.perplexityDp[pi];
            row["perplexity_star"] = d.perplexityStar;
            row["perplexity_uniform"] = d.perplexityUniform;
            row["perplexity_random_search"] = d.perplexityRandomSearch;
            row["user_grad_norm_q10_50_90_uniform"] = d.userGradientNormQuantilesUniform;
            row["user_grad_norm_q10_50_90_star"] = d.userGradientNormQuantilesStar;
            tasks.push_back(std::move(row));
        }
    }
    return tasks;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: bench_text_study SPEC.json PROJECT.dpmix [epsilons] [rho] [seeds] [tokenizer bytes per "
                     "domain]\n";
        return 2;
    }
    pipeline::StudyRunOptions options;
    if (argc > 3)
        for (const auto& e : splitList(argv[3])) options.epsilons.push_back(std::atof(e.c_str()));
    if (argc > 4) options.rho = std::atof(argv[4]);
    if (argc > 5)
        for (const auto& s : splitList(argv[5])) options.seeds.push_back(std::strtoull(s.c_str(), nullptr, 10));
    text_study::TextStudySettings settings;
    if (argc > 6) settings.tokenizerBytesPerDomain = std::strtoull(argv[6], nullptr, 10);

    const auto t0 = std::chrono::steady_clock::now();
    auto created = project::createProjectFromSpecFile(
        argv[1], argv[2],
        [](const data::SourceSpec& spec) -> Result<project::SourceFacts> {
            auto s = data::summarizeSource(spec);
            if (!s) return s.error();
            project::SourceFacts f;
            f.kind = s->kind;
            f.examples = s->examples;
            f.labelNames = s->labelNames;
            f.domains = s->domains;
            f.users = s->users;
            f.contentHash = s->contentHash;
            return f;
        },
        true);
    if (!created) {
        std::cerr << "bench_text_study: " << created.error().message << '\n';
        return 1;
    }
    project::ProjectFile proj = std::move(created).value();
    const double createSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto report = text_study::runTextStudy(proj, options, settings, {}, {},
                                           [](const std::string& line) { std::cerr << line << '\n'; });
    if (!report) {
        std::cerr << "bench_text_study: " << report.error().message << '\n';
        return 1;
    }
    const double totalSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const nlohmann::ordered_json tasks = tasksJson(*report);
    nlohmann::ordered_json out{{"project", report->study.project},
                               {"vocabulary", report->vocabularySize},
                               {"test_documents", report->testDocuments},
                               {"test_users", report->testUsers},
                               {"seconds_create_project", createSeconds},
                               {"seconds_total", totalSeconds},
                               {"cpu_seconds_total", static_cast<double>(std::clock()) / CLOCKS_PER_SEC},
                               {"tasks", tasks}};
    std::cout << out.dump(2) << '\n';
    return 0;
}
