// A project a reviewer received on a read-only medium, or in a folder they cannot write
// (docs/RELIABILITY.md, item 5): it opens read-only, everything reads (spec, runs, ledgers, results, the
// hash chain), nothing is written (no -wal, no -shm, no migration, no recovery), and every
// write call says the project is read-only. Before, opening failed with "attempt to write a
// readonly database".
//
// Root ignores permission bits, so when the test runs as root the checks run in a child that
// has dropped to the unprivileged user nobody (uid/gid 65534).
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace dpmix;
using namespace dpmix::project;
using namespace dpmix::project::testing;
using dpmix::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> filesIn(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Runs `check` as an unprivileged process; "" means it passed, else what failed.
std::string asUnprivileged(const std::function<std::string()>& check) {
    if (::geteuid() != 0) return check();
    int fds[2];
    if (pipe(fds) != 0) return "pipe failed";
    const pid_t child = fork();
    if (child < 0) return "fork failed";
    if (child == 0) {
        close(fds[0]);
        std::string problem;
        if (setgid(65534) != 0 || setuid(65534) != 0)
            problem = "cannot drop to uid 65534";
        else
            problem = check();
        (void)!write(fds[1], problem.data(), problem.size());
        _exit(0);
    }
    close(fds[1]);
    std::string problem;
    char buffer[512];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) problem.append(buffer, static_cast<std::size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status)) return "the unprivileged child crashed: " + problem;
    return problem;
}

#define EXPECT(condition, what) \
    if (!(condition)) return std::string(what)

// What a reader needs: everything reads, nothing writes.
std::string readEverything(const fs::path& file, long long run) {
    auto opened = ProjectFile::open(file);
    EXPECT(opened.ok(), "open: " + opened.error().message);
    ProjectFile project = std::move(opened).value();
    EXPECT(project.readOnly(), "not opened read-only");
    EXPECT(project.spec().name == "tiny", "spec");
    auto runs = project.runs();
    EXPECT(runs.ok() && runs->size() == 1,
           "runs: " + (runs.ok() ? std::to_string(runs->size()) : runs.error().message));
    EXPECT(toString((*runs)[0].status) == "running", "status: " + toString((*runs)[0].status));  // no recovery
    auto ledgers = project.ledgers(run);
    EXPECT(ledgers.ok() && ledgers->size() == 1, "ledgers");
    auto metrics = project.metrics(run);
    EXPECT(metrics.ok() && metrics->size() == 1 && (*metrics)[0].value == 0.75, "metrics");
    auto chain = project.verifyChain();
    EXPECT(chain.ok() && chain->ok, "hash chain");
    auto added = project.addRun({"dp-mixmin", "", 1.0, 9, "{}"});
    EXPECT(!added.ok() && added.error().message.find("read-only") != std::string::npos,
           "addRun on a read-only project: " + (added.ok() ? std::string("succeeded") : added.error().message));
    auto log = project.addLog(run, "info", "x");
    EXPECT(!log.ok() && log.error().message.find("read-only") != std::string::npos, "addLog on a read-only project");
    auto forWriting = ProjectFile::open(file, OpenMode::ReadWrite);
    EXPECT(!forWriting.ok() && forWriting.error().message.find("not writable") != std::string::npos,
           "ReadWrite open of a read-only project: " +
               (forWriting.ok() ? std::string("succeeded") : forWriting.error().message));
    return {};
}

}  // namespace

class TestProjectReadOnly : public QObject {
    Q_OBJECT
    TempDir dir_;

    // A closed project with one running run (its process alive: this one), a ledger and a
    // metric, in its own folder; returns the run id.
    long long makeProject(const fs::path& file) {
        fs::create_directories(file.parent_path());
        auto created = ProjectFile::create(file, tinySpec(), tinyFacts());
        if (!created) throw std::runtime_error("create: " + created.error().message);
        ProjectFile p = std::move(created).value();
        const long long run = p.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"}).value();
        (void)p.setRunStatus(run, RunStatus::Running).value();
        privacy::Ledger ledger;
        ledger.record(privacy::nonPrivateEntry("mixture", "A", "test"));
        (void)p.recordLedger(run, ledger, 1.0).value();
        (void)p.addMetrics({{run, "auc", "", 0.75}}).value();
        return run;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        ::chmod(dir_.path().c_str(), 0755);  // reachable for the unprivileged child
    }

    void readOnlyFolder() {
        const fs::path folder = fs::path(dir_.path()) / "ro-folder";
        const fs::path file = folder / "study.dpmix";
        const long long run = makeProject(file);
        QCOMPARE(filesIn(folder), (std::vector<std::string>{"study.dpmix"}));  // closed: no -wal, no -shm
        fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
        fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                    fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
        const std::string problem = asUnprivileged([&] { return readEverything(file, run); });
        QVERIFY2(problem.empty(), problem.c_str());
        QCOMPARE(filesIn(folder), (std::vector<std::string>{"study.dpmix"}));  // nothing was written
        fs::permissions(folder, fs::perms::owner_all, fs::perm_options::add);
    }

    void readOnlyFileInAWritableFolder() {
        const fs::path folder = fs::path(dir_.path()) / "ro-file";
        const fs::path file = folder / "study.dpmix";
        const long long run = makeProject(file);
        fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
        fs::permissions(folder, fs::perms::all);  // the unprivileged child may write here, not the file
        const std::string problem = asUnprivileged([&] { return readEverything(file, run); });
        QVERIFY2(problem.empty(), problem.c_str());
    }

    // An explicit read-only open of a writable project changes nothing either (no recovery of
    // a run whose process is gone: that needs a write).
    void explicitReadOnlyOpenWritesNothing() {
        const fs::path folder = fs::path(dir_.path()) / "explicit";
        const fs::path file = folder / "study.dpmix";
        const long long run = makeProject(file);
        rawExec(file.string(), "UPDATE runs SET owner_start = 'gone/1'");  // its process is gone
        const std::string before = readBytes(file.string());
        {
            auto p = ProjectFile::open(file, OpenMode::ReadOnly);
            QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
            QVERIFY(p->readOnly());
            QCOMPARE(toString(p->run(run)->status), std::string("running"));
            QVERIFY(p->interruptedOnOpen().empty());
        }
        QCOMPARE(readBytes(file.string()), before);
        auto p = ProjectFile::open(file);  // read-write: now the run is recovered
        QVERIFY(p.ok() && !p->readOnly());
        QCOMPARE(toString(p->run(run)->status), std::string("interrupted"));
    }

    // A copy taken while the writer was still open: the -wal holds the newest commits. In a
    // read-only folder without a -shm, SQLite cannot read the -wal; the open must not silently
    // show the older state (immutable would ignore the -wal), so it either reads everything
    // or fails saying what to do.
    void readOnlyFolderWithAPendingWal() {
        const fs::path folder = fs::path(dir_.path()) / "wal-src";
        const fs::path file = folder / "study.dpmix";
        makeProject(file);
        auto writer = ProjectFile::open(file);
        QVERIFY(writer.ok());
        ProjectFile w = std::move(writer).value();
        const long long late = w.addRun({"uniform", "ac", 1.0, 1, "{}"}).value();  // in the -wal only
        QVERIFY(fs::exists(file.string() + "-wal") && fs::file_size(file.string() + "-wal") > 0);
        const fs::path copy = fs::path(dir_.path()) / "wal-copy";
        fs::create_directories(copy);
        fs::copy_file(file, copy / "study.dpmix");
        fs::copy_file(file.string() + "-wal", copy / "study.dpmix-wal");
        fs::permissions(copy, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
        const std::string problem = asUnprivileged([&]() -> std::string {
            auto p = ProjectFile::open(copy / "study.dpmix");
            std::fprintf(stderr, "pending -wal in a read-only folder: %s\n",
                         p.ok() ? "read" : p.error().message.c_str());
            if (p.ok()) {
                EXPECT(p->runs().ok() && p->runs()->size() == 2 && p->run(late).ok(), "the -wal's run is missing");
                return {};
            }
            EXPECT(p.error().message.find("copy the project file together with its -wal") != std::string::npos,
                   "unclear error: " + p.error().message);
            return {};
        });
        QVERIFY2(problem.empty(), problem.c_str());
        fs::permissions(copy, fs::perms::owner_all, fs::perm_options::add);
    }
};

QTEST_APPLESS_MAIN(TestProjectReadOnly)
#include "tst_project_readonly.moc"
