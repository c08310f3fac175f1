// What `dpmix doctor` reports and the device a run is given: probed from the LibTorch this
// process loaded (the expectations follow whether this machine has a CUDA device).
#include "engine/runtime/runtime_info.h"

#include <QtTest>

class TestRuntimeInfo : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theProbeDescribesTheLoadedRuntime() {
        const auto info = dpmix::runtime::probeRuntime();
        QVERIFY(!info.torchVersion.empty());
        QVERIFY(info.threads >= 1);
        QVERIFY(!info.parallelBackend.empty());
        QVERIFY(info.matmulMs > 0.0);
        QVERIFY(!info.blasName.empty());  // "unknown" at worst, never blank
        QCOMPARE(info.cudaDevices > 0, info.cudaAvailable);
    }

    void theCpuIsAlwaysGivenWhenAsked() {
        const auto choice = dpmix::runtime::chooseDevice("cpu");
        QCOMPARE(choice.device, std::string("cpu"));
        QVERIFY(choice.note.empty());
    }

    void cudaIsGivenOnlyWhereThereIsOne() {
        const bool cuda = dpmix::runtime::probeRuntime().cudaAvailable;
        const auto asked = dpmix::runtime::chooseDevice("cuda");
        const auto automatic = dpmix::runtime::chooseDevice("auto");
        if (cuda) {
            QCOMPARE(asked.device, std::string("cuda"));
            QCOMPARE(automatic.device, std::string("cuda"));
        } else {
            QCOMPARE(asked.device, std::string("cpu"));
            QVERIFY(asked.note.find("CUDA") != std::string::npos);  // the fallback is said, not silent
            QCOMPARE(automatic.device, std::string("cpu"));
            QVERIFY(automatic.note.empty());
        }
    }

    void theThreadCountIsSetOnlyWhenGiven() {
        const int before = dpmix::runtime::probeRuntime().threads;
        dpmix::runtime::setThreads(0);  // 0: leave torch's default
        QCOMPARE(dpmix::runtime::probeRuntime().threads, before);
        dpmix::runtime::setThreads(1);
        QCOMPARE(dpmix::runtime::probeRuntime().threads, 1);
    }
};

QTEST_APPLESS_MAIN(TestRuntimeInfo)
#include "tst_runtime_info.moc"
