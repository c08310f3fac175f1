// kill -9 in the middle of a run: a child process writes results in a loop, the parent kills
// it with SIGKILL at an arbitrary point, reopens the file and finds the last committed state:
// every acknowledged write present, every multi-row write all-or-nothing, the chain intact —
// and the run, whose process is gone, interrupted rather than running forever (docs/RELIABILITY.md,
// item 5). A full disk (RLIMIT_FSIZE) in the middle of a model write leaves no temporary file,
// and temporary files of dead processes are removed on open.
#include "engine/project/project_file.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include "engine/project/process_identity.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <filesystem>
#include <fstream>

using namespace dpmix::project;
using namespace dpmix::project::testing;
using dpmix::test_support::str;
using dpmix::test_support::TempDir;

namespace {

constexpr int kPointsPerCurve = 50;

// Child: after each committed write, report how many curves are committed through the pipe.
[[noreturn]] void writeForever(const std::string& file, int reportFd) {
    auto opened = ProjectFile::open(file);
    if (!opened) _exit(3);
    ProjectFile project = std::move(opened).value();
    ProjectFile* p = &project;
    const long long run = *p->addRun({"dp-mixmin", "", 1.0, 0, "{}"});
    (void)p->setRunStatus(run, RunStatus::Running);
    dpmix::privacy::Ledger ledger;  // the conservative ledger is recorded before the results
    ledger.record(dpmix::privacy::nonPrivateEntry("mixture", "A", "test"));
    if (!p->recordLedger(run, ledger, 1.0)) _exit(6);
    for (int i = 0;; ++i) {
        std::vector<CurvePoint> points;
        for (int s = 0; s < kPointsPerCurve; ++s) points.push_back({s, i + s / 100.0});
        if (!p->addCurve(run, "curve-" + std::to_string(i), points)) _exit(4);
        const int committed = i + 1;
        if (write(reportFd, &committed, sizeof committed) != sizeof committed) _exit(5);
    }
}

}  // namespace

class TestProjectDurability : public QObject {
    Q_OBJECT
    TempDir dir_;

    void killMidRun(int killAfter) {
        const std::string f = dir_.path() + "/killed-" + std::to_string(killAfter) + ".dpmix";
        {
            auto p = ProjectFile::create(f, tinySpec(), tinyFacts());
            QVERIFY(p.ok());
        }
        int fds[2];
        QVERIFY(pipe(fds) == 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            close(fds[0]);
            writeForever(f, fds[1]);
        }
        close(fds[1]);
        int acknowledged = 0, value = 0;
        while (acknowledged < killAfter && read(fds[0], &value, sizeof value) == sizeof value) acknowledged = value;
        QCOMPARE(acknowledged, killAfter);
        QCOMPARE(kill(child, SIGKILL), 0);  // the child is busy writing its next curve
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        close(fds[0]);

        auto opened = ProjectFile::open(f);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
        ProjectFile project = std::move(opened).value();
        ProjectFile* p = &project;
        QCOMPARE(rawText(f, "PRAGMA integrity_check"), std::string("ok"));
        auto runs = p->runs().value();
        QCOMPARE(runs.size(), std::size_t(1));
        // Committed as running; its process is gone, so the open marked it interrupted.
        QCOMPARE(toString(runs[0].status), toString(RunStatus::Interrupted));
        QVERIFY2(runs[0].message.find("pid " + std::to_string(child)) != std::string::npos, runs[0].message.c_str());
        QVERIFY(!runs[0].finishedAt.empty());
        QCOMPARE(p->interruptedOnOpen(), (std::vector<long long>{runs[0].id}));
        QCOMPARE(p->ledgers(runs[0].id)->size(), std::size_t(1));  // its ledger is kept
        QCOMPARE(p->logs(runs[0].id)->back().level, std::string("warning"));
        QVERIFY(!p->setRunStatus(runs[0].id, RunStatus::Done).ok());  // interrupted is final
        const auto names = p->curveNames(runs[0].id).value();
        QVERIFY2(static_cast<int>(names.size()) >= acknowledged,
                 str(names.size(), " curves, ", acknowledged, " acknowledged").c_str());
        for (const auto& name : names)
            QCOMPARE(static_cast<int>(p->curve(runs[0].id, name)->size()), kPointsPerCurve);  // never half a curve
        QVERIFY(p->verifyChain()->ok);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }
    void killAfterOneWrite() { killMidRun(1); }
    void killAfterSeveralWrites() { killMidRun(7); }
    void killAfterManyWrites() { killMidRun(25); }

    // A run of a live process (this one, another open in it) is left alone.
    void liveRunsStayRunning() {
        const std::string f = dir_.path() + "/live.dpmix";
        auto created = ProjectFile::create(f, tinySpec(), tinyFacts());
        QVERIFY(created.ok());
        ProjectFile project = std::move(created).value();
        ProjectFile* p = &project;
        const long long run = *p->addRun({"dp-mixmin", "", 1.0, 0, "{}"});
        QVERIFY(p->setRunStatus(run, RunStatus::Running).ok());
        auto again = ProjectFile::open(f);
        QVERIFY(again.ok());
        QVERIFY(again->interruptedOnOpen().empty());
        QCOMPARE(toString(again->run(run)->status), std::string("running"));
        QVERIFY(p->setRunStatus(run, RunStatus::Done).ok());
        // A recycled pid: the row names this pid but another start time, so its process is gone.
        const long long stale = *p->addRun({"dp-mixmin", "", 1.0, 1, "{}"});
        QVERIFY(p->setRunStatus(stale, RunStatus::Running).ok());
        rawExec(f, "UPDATE runs SET owner_start = 'not-this-boot/1' WHERE id = " + std::to_string(stale));
        auto third = ProjectFile::open(f);
        QVERIFY(third.ok());
        QCOMPARE(third->interruptedOnOpen(), (std::vector<long long>{stale}));
        QCOMPARE(toString(third->run(run)->status), std::string("done"));
        // A run of another host cannot be checked from here: it is left as it is.
        const long long remote = *p->addRun({"dp-mixmin", "", 1.0, 2, "{}"});
        QVERIFY(p->setRunStatus(remote, RunStatus::Running).ok());
        rawExec(f, "UPDATE runs SET owner_host = 'another-host', owner_pid = 1 WHERE id = " + std::to_string(remote));
        auto fourth = ProjectFile::open(f);
        QVERIFY(fourth.ok());
        QVERIFY(fourth->interruptedOnOpen().empty());
        QCOMPARE(toString(fourth->run(remote)->status), std::string("running"));
    }

    // A full disk in the middle of a model write (RLIMIT_FSIZE in a child: writes past the
    // limit fail with EFBIG, as ENOSPC would): the call fails clearly, no .tmp file stays to
    // keep the disk full, the run is not done; the child exits without finishing the run, and
    // the next open marks it interrupted.
    void fullDiskDuringModelWriteLeavesNoTemporaryFile() {
        const std::string f = dir_.path() + "/full.dpmix";
        {
            auto p = ProjectFile::create(f, tinySpec(), tinyFacts());
            QVERIFY(p.ok());
        }
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            auto opened = ProjectFile::open(f);
            if (!opened) _exit(3);
            ProjectFile project = std::move(opened).value();
            ProjectFile* p = &project;
            const long long run = *p->addRun({"dp-mixmin", "", 1.0, 0, "{}"});
            if (!p->setRunStatus(run, RunStatus::Running)) _exit(4);
            std::signal(SIGXFSZ, SIG_IGN);
            rlimit limit{256 * 1024, 256 * 1024};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(5);
            auto stored = p->storeWeights(run, "finetuned", std::vector<float>(1 << 20, 0.5f));  // 4 MiB
            if (stored.ok()) _exit(6);
            const std::string& m = stored.error().message;
            if (m.find("disk is full") == std::string::npos || m.find("partial file was removed") == std::string::npos)
                _exit(7);
            _exit(0);  // like a process that dies on ENOSPC without marking its run
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, str("child exit ", WEXITSTATUS(status)).c_str());
        auto p = ProjectFile::open(f);
        QVERIFY(p.ok());
        for (const auto& e : std::filesystem::directory_iterator(p->modelsDir()))
            QVERIFY2(e.path().filename().string().find(".tmp") == std::string::npos, e.path().c_str());
        QCOMPARE(p->models(1)->size(), std::size_t(0));
        QCOMPARE(toString(p->run(1)->status), std::string("interrupted"));
    }

    // Temporary files of dead processes (a killed `dpmix new`, a killed model write) go on
    // open; those of live processes, and files that merely look similar, stay.
    void staleTemporaryFilesAreRemovedOnOpen() {
        namespace fs = std::filesystem;
        const std::string f = dir_.path() + "/tmps.dpmix";
        auto created = ProjectFile::create(f, tinySpec(), tinyFacts());
        QVERIFY(created.ok());
        const fs::path models = created->modelsDir();
        fs::create_directories(models);
        const pid_t dead = fork();  // a pid that has just exited
        if (dead == 0) _exit(0);
        waitpid(dead, nullptr, 0);
        const std::string deadPid = std::to_string(dead);
        const std::string live = temporarySuffix();  // this process
        auto touch = [](const fs::path& p) { std::ofstream(p) << "partial"; };
        const std::vector<fs::path> stale = {
            f + ".tmp-" + deadPid,  // an older dpmix's name
            f + ".tmp-" + deadPid + "-wal",
            f + ".tmp-" + deadPid + "-123-0badb00t-" + currentProcess().host,
            models / ("ab12.bin.tmp-" + deadPid + "-123-0badb00t-" + currentProcess().host),
            models / ("cd34.bin.tmp-" + std::to_string(::getpid()) + "-1-00000000-" +
                      currentProcess().host),  // recycled pid
        };
        const std::vector<fs::path> kept = {
            f + live,                                                             // a live creator
            models / ("ef56.bin" + live),                                         // a live model write
            models / ("ab12.bin.tmp-" + deadPid + "-123-0badb00t-another-host"),  // cannot be checked
            fs::path(dir_.path()) / ("other.dpmix.tmp-" + deadPid),               // another project's
            models / "0123.bin",                                                  // a model
        };
        for (const auto& p : stale) touch(p);
        for (const auto& p : kept) touch(p);
        auto p = ProjectFile::open(f);
        QVERIFY(p.ok());
        for (const auto& s : stale) QVERIFY2(!fs::exists(s), s.c_str());
        for (const auto& k : kept) QVERIFY2(fs::exists(k), k.c_str());
        QCOMPARE(p->removedTemporaryFiles().size(), stale.size());
    }
};

QTEST_APPLESS_MAIN(TestProjectDurability)
#include "tst_project_durability.moc"
