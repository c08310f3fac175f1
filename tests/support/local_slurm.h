#pragma once
// The `cluster` tests' check for a Slurm (scripts/slurm-local.sh starts a one-node one;
// docs/CLUSTER.md, "Testing").
#include <QProcess>
#include <QString>
#include <QtTest>

namespace dpmix::test_support {

/// Whether sinfo answers with a usable node.
inline bool slurmAnswers() {
    QProcess p;
    p.start("sinfo", {"-h", "-o", "%T"});
    if (!p.waitForFinished(15000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) return false;
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    return out.contains("idle") || out.contains("mix") || out.contains("alloc");
}

}  // namespace dpmix::test_support

/// In initTestCase: skips the test without a Slurm, or fails it when DPMIX_REQUIRE_SLURM=1 (CI).
#define DPMIX_SKIP_WITHOUT_SLURM()                                                                                    \
    do {                                                                                                              \
        if (!dpmix::test_support::slurmAnswers()) {                                                                   \
            if (qgetenv("DPMIX_REQUIRE_SLURM") == "1")                                                                \
                QFAIL(                                                                                                \
                    "no Slurm answers (sinfo) but DPMIX_REQUIRE_SLURM=1: scripts/slurm-local.sh start did not work"); \
            QSKIP("no Slurm on this host (start one with scripts/slurm-local.sh start)");                             \
        }                                                                                                             \
    } while (false)
