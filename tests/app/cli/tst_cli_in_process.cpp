// `dpmix` commands run in this process, on fresh CLI::App objects one after another: each
// registration owns its arguments (no function-local statics), so a second App parses its own
// values and an option of a destroyed App is never consulted.
#include "app/cli/command.h"
#include "app/cli/mixture_json.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/runtime/runtime_info.h"

#include <QtTest>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct InProcessRun {
    int exitCode = -1;
    std::string out, err;
};

// Registers every command on a new App, parses `args` and returns what the command printed.
InProcessRun runInProcess(std::vector<std::string> args) {
    auto app = std::make_unique<CLI::App>("dpmix");
    app->require_subcommand(1);
    dpmix::cli::CommandContext ctx;
    dpmix::cli::registerCommands(*app, ctx);
    args.insert(args.begin(), "dpmix");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    auto* oldOut = std::cout.rdbuf(out.rdbuf());
    auto* oldErr = std::cerr.rdbuf(err.rdbuf());
    InProcessRun r;
    try {
        app->parse(static_cast<int>(argv.size()), argv.data());
        r.exitCode = ctx.exitCode;
    } catch (const CLI::ParseError& e) {
        r.exitCode = app->exit(e, out, err) == 0 ? 0 : 2;
    }
    std::cout.rdbuf(oldOut);
    std::cerr.rdbuf(oldErr);
    r.out = out.str();
    r.err = err.str();
    return r;
}

double epsilonOf(const InProcessRun& r) { return nlohmann::json::parse(r.out).at("epsilon").get<double>(); }

}  // namespace

class TestCliInProcess : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void twoAppsParseTheirOwnValues() {
        const auto a = runInProcess(
            {"privacy", "epsilon", "--q", "0.01", "--sigma", "1", "--steps", "100", "--delta", "1e-5", "--json"});
        const auto b = runInProcess(
            {"privacy", "epsilon", "--q", "0.01", "--sigma", "2", "--steps", "100", "--delta", "1e-5", "--json"});
        QCOMPARE(a.exitCode, 0);
        QCOMPARE(b.exitCode, 0);
        // Each equals the accountant's own value for its σ (computed here, not by the command).
        QCOMPARE(epsilonOf(a), dpmix::privacy::gaussianEpsilon({0.01, 1.0, 100}, 1e-5).epsilon);
        QCOMPARE(epsilonOf(b), dpmix::privacy::gaussianEpsilon({0.01, 2.0, 100}, 1e-5).epsilon);
        QVERIFY(epsilonOf(b) < epsilonOf(a));
        // A third App without --json prints text: the flag of the earlier Apps did not stick.
        const auto c =
            runInProcess({"privacy", "epsilon", "--q", "0.01", "--sigma", "1", "--steps", "100", "--delta", "1e-5"});
        QCOMPARE(c.exitCode, 0);
        QVERIFY2(c.out.rfind("{", 0) != 0, c.out.c_str());
    }

    void anOptionOfTheCurrentAppDecides() {
        // `new -o ''` is refused through the -o option of the App that parsed it; with a static
        // option pointer the second App would consult the first (destroyed) App's option.
        for (int round = 0; round < 2; ++round) {
            const auto r = runInProcess({"new", "no-such-spec.json", "-o", ""});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.find("-o '': expected the path of the project file to create") != std::string::npos,
                     r.err.c_str());
        }
        const auto without = runInProcess({"new", "no-such-spec.json"});
        QCOMPARE(without.exitCode, 2);
        QVERIFY2(without.err.find("-o ''") == std::string::npos, without.err.c_str());
    }

    // --device is checked with the other values, before a project is opened or created.
    void everyTrainingCommandChecksItsDeviceFirst() {
        const bool cuda = dpmix::runtime::probeRuntime().cudaAvailable;
        const std::vector<std::vector<std::string>> commands{
            {"run", "no-such-spec.json"},
            {"audit", "no-such-spec.json", "--task", "t", "--canary", "natural"},
            {"psg", "no-such-spec.json"},
            {"experiment", "rho-sweep", "no-such-spec.json"},
            {"experiment", "k-scaling", "no-such-spec.json"}};
        for (auto command : commands) {
            auto unknown = command;
            unknown.insert(unknown.end(), {"--device", "gpu"});
            const auto r = runInProcess(unknown);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.find("--device = gpu: expected auto, cpu, cuda or cuda:N") != std::string::npos,
                     (command.front() + ": " + r.err).c_str());
            if (!cuda) {  // an explicit CUDA request is refused, not run on the CPU
                auto gpu = command;
                gpu.insert(gpu.end(), {"--device", "cuda"});
                const auto g = runInProcess(gpu);
                QCOMPARE(g.exitCode, 2);
                QVERIFY2(g.err.find("--device = cuda: no CUDA device is available") != std::string::npos,
                         g.err.c_str());
            }
        }
        QVERIFY(!std::filesystem::exists("no-such-spec.dpmix"));
    }

    void aPrivateLambdaPrintsAsTheJsonDocumentsSay() {
        // The object `dpmix run --json` and `dpmix-text run --json` print per (ε, seed), from
        // one helper: every field, in this order, with the values given.
        dpmix::pipeline::MixtureReport m;
        m.rho = 0.2;
        m.splitA = 100;
        m.splitB = 400;
        m.outcome.task = "ab";
        m.outcome.componentNames = {"a", "b"};
        m.outcome.lambdaStar = Eigen::Vector2d(0.9, 0.1);
        m.outcome.lambdaUniform = Eigen::Vector2d(0.5, 0.5);
        m.outcome.lambdaRandomSearch = Eigen::Vector2d(0.7, 0.3);
        m.outcome.uniformCosine = 0.8;
        m.outcome.uniformL1 = 0.8;
        m.outcome.randomSearchCosine = 0.95;
        dpmix::pipeline::PrivateLambda p;
        p.epsilon = 2.0;
        p.seed = 3;
        p.lambda = Eigen::Vector2d(0.85, 0.15);
        p.sigma = 1.5;
        p.epsilonSpent = 1.99;
        p.delta = 1e-5;
        p.cosine = 0.99;
        p.l1 = 0.1;
        const auto j = dpmix::cli::privateLambdaJson(m, p);
        std::vector<std::string> keys;
        for (const auto& [k, v] : j.items()) keys.push_back(k);
        const std::vector<std::string> expected{"task",
                                                "seed",
                                                "epsilon",
                                                "rho",
                                                "split_a",
                                                "split_b",
                                                "components",
                                                "lambda_dp",
                                                "lambda_star",
                                                "lambda_uniform",
                                                "lambda_random_search",
                                                "cos_dp",
                                                "l1_dp",
                                                "cos_uniform",
                                                "l1_uniform",
                                                "cos_random_search",
                                                "sigma",
                                                "epsilon_spent",
                                                "delta"};
        QVERIFY(keys == expected);
        QCOMPARE(j["task"].get<std::string>(), std::string("ab"));
        QCOMPARE(j["seed"].get<int>(), 3);
        QCOMPARE(j["split_b"].get<long long>(), 400LL);
        QCOMPARE(j["lambda_dp"][0].get<double>(), 0.85);
        QCOMPARE(j["lambda_random_search"][1].get<double>(), 0.3);
        QCOMPARE(j["epsilon_spent"].get<double>(), 1.99);
    }

    void engineMessagesGetTheFlagsDashesHere() {
        // The engine says "ks: k = 1 is out of range" (field "ks"); the command line adds "--".
        const auto r = runInProcess({"experiment", "k-scaling", "no-such-spec.json", "--ks", "1,2"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--ks: k = 1 is out of range: expected an integer >= 2") != std::string::npos,
                 r.err.c_str());
    }
};

QTEST_APPLESS_MAIN(TestCliInProcess)
#include "tst_cli_in_process.moc"
