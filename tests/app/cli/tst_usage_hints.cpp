// A newcomer's typos on the command line get the command or option they meant: the edit distance
// against values worked by hand, the hint for every registered command and option of dpmix, and
// the built program printing it after CLI11's message (exit 2) with "dpmix" — not the build path —
// in its usage line.
#include "app/cli/command.h"
#include "app/cli/usage_hints.h"
#include "tests/app/cli/cli_runner.h"

#include <QtTest>

#include <memory>
#include <string>
#include <vector>

using dpmix::cli::closestName;
using dpmix::cli::editDistance;
using dpmix::cli::usageHint;

namespace {

// The hint for `args` on an App with every dpmix command registered, as main.cpp builds it.
std::string hintFor(const std::vector<std::string>& args) {
    CLI::App app{"dpmix", "dpmix"};
    app.require_subcommand(1);
    app.add_option("--threads", "compute threads");
    dpmix::cli::CommandContext ctx;
    dpmix::cli::registerCommands(app, ctx);
    return usageHint(app, args);
}

}  // namespace

class TestUsageHints : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void editDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps() {
        QCOMPARE(editDistance("inspct", "inspect"), std::size_t(1));  // one deletion
        QCOMPARE(editDistance("--stage", "--stages"), std::size_t(1));
        QCOMPARE(editDistance("rnu", "run"), std::size_t(1));         // adjacent swap
        QCOMPARE(editDistance("kitten", "sitting"), std::size_t(3));  // k→s, e→i, +g
        QCOMPARE(editDistance("", "abc"), std::size_t(3));
        QCOMPARE(editDistance("same", "same"), std::size_t(0));
    }

    void closestNameNeedsOneClearCandidate() {
        const std::vector<std::string> names{"inspect", "init", "run", "results", "budget"};
        QCOMPARE(closestName("inspct", names).value_or(""), std::string("inspect"));
        QCOMPARE(closestName("rnu", names).value_or(""), std::string("run"));
        QCOMPARE(closestName("bud", names).value_or(""), std::string("budget"));  // the start of one name
        QVERIFY(!closestName("zzzzzz", names));                                   // nothing close
        QCOMPARE(closestName("rxsults", {"results", "resultz"}).value_or(""), std::string("results"));
        QVERIFY(!closestName("ab", {"ax", "ay"}));  // two equally close: no guess
    }

    void hintsNameTheCommandOrOptionMeant() {
        QCOMPARE(hintFor({"inspct", "x.dpmix"}),
                 std::string("'inspct' is not a dpmix command: did you mean 'inspect'?"));
        QCOMPARE(hintFor({"--threads", "2", "rnu", "spec.json"}),
                 std::string("'rnu' is not a dpmix command: did you mean 'run'?"));
        QCOMPARE(hintFor({"run", "spec.json", "--stage", "mixture"}),
                 std::string("'--stage' is not an option of 'dpmix run': did you mean '--stages'?"));
        QCOMPARE(hintFor({"run", "spec.json", "--epsilonn=1"}),
                 std::string("'--epsilonn' is not an option of 'dpmix run': did you mean '--epsilon'?"));
        const std::string nested = hintFor({"experiment", "k-scalin", "p.dpmix"});
        QVERIFY2(nested.find("did you mean 'k-scaling'?") != std::string::npos, nested.c_str());
        QVERIFY2(hintFor({"frobnicate"}).find("`dpmix --help` lists them") != std::string::npos,
                 hintFor({"frobnicate"}).c_str());
        // Nothing mistyped: no hint.
        QCOMPARE(hintFor({"run", "spec.json", "--stages", "mixture", "--epsilon", "1"}), std::string());
        QCOMPARE(hintFor({"--threads", "2", "inspect", "x.dpmix"}), std::string());
    }

    void theProgramPrintsTheHintAfterItsMessage() {
        const auto typo = runDpmix({"inspct", "x.dpmix"});
        QCOMPARE(typo.exitCode, 2);
        QVERIFY2(typo.err.contains("did you mean 'inspect'?"), qPrintable(typo.err));
        const auto option = runDpmix({"run", "spec.json", "--stage", "mixture"});
        QCOMPARE(option.exitCode, 2);
        QVERIFY2(option.err.contains("did you mean '--stages'?"), qPrintable(option.err));
        const auto usage = runDpmix({"run"});
        QCOMPARE(usage.exitCode, 2);
        const QString all = usage.out + usage.err;
        QVERIFY2(!all.contains("/bin/dpmix"), qPrintable(all));  // "dpmix", not where it was built
    }
};

QTEST_GUILESS_MAIN(TestUsageHints)
#include "tst_usage_hints.moc"
