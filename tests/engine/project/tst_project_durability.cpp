// kill -9 in the middle of a run: a child process writes results in a loop, the parent kills
// it with SIGKILL at an arbitrary point, reopens the file and finds the last committed state:
// every acknowledged write present, every multi-row write all-or-nothing, the chain intact.
#include "engine/project/project_file.h"
#include "project_fixture.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace dpmix::project;
using namespace dpmix::project::testing;

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
    QTemporaryDir dir_;

    void killMidRun(int killAfter) {
        const std::string f = dir_.path().toStdString() + "/killed-" + std::to_string(killAfter) + ".dpmix";
        { auto p = ProjectFile::create(f, tinySpec(), tinyFacts()); QVERIFY(p.ok()); }
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

        auto p = ProjectFile::open(f);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        QCOMPARE(rawText(f, "PRAGMA integrity_check"), std::string("ok"));
        auto runs = p->runs().value();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(toString(runs[0].status), toString(RunStatus::Running));  // as last committed
        const auto names = p->curveNames(runs[0].id).value();
        QVERIFY2(static_cast<int>(names.size()) >= acknowledged,
                 qPrintable(QString("%1 curves, %2 acknowledged").arg(names.size()).arg(acknowledged)));
        for (const auto& name : names)
            QCOMPARE(static_cast<int>(p->curve(runs[0].id, name)->size()), kPointsPerCurve);  // never half a curve
        QVERIFY(p->verifyChain()->ok);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }
    void killAfterOneWrite() { killMidRun(1); }
    void killAfterSeveralWrites() { killMidRun(7); }
    void killAfterManyWrites() { killMidRun(25); }
};

QTEST_APPLESS_MAIN(TestProjectDurability)
#include "tst_project_durability.moc"
