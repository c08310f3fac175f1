// `dpmix` commands run in this process, on fresh CLI::App objects one after another: each
// registration owns its arguments (no function-local statics), so a second App parses its own
// values and an option of a destroyed App is never consulted.
#include "app/cli/command.h"
#include "engine/privacy/gaussian_accountant.h"

#include <QtTest>

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
