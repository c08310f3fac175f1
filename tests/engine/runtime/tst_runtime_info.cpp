// What `dpmix doctor` reports and the device a run is given: probed from the LibTorch this
// process loaded (the expectations follow whether this machine has a CUDA device).
#include "engine/runtime/runtime_info.h"

#include "tests/support/unit_test.h"

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
        QVERIFY(choice);
        QCOMPARE(*choice, std::string("cpu"));
    }

    void cudaIsGivenOnlyWhereThereIsOne() {
        const bool cuda = dpmix::runtime::probeRuntime().cudaAvailable;
        const auto asked = dpmix::runtime::chooseDevice("cuda");
        const auto automatic = dpmix::runtime::chooseDevice("auto");
        QVERIFY(automatic);
        if (cuda) {
            QVERIFY(asked);
            QCOMPARE(*asked, std::string("cuda"));
            QCOMPARE(*automatic, std::string("cuda"));
        } else {
            // An explicit request that cannot be met is refused, not silently run on the CPU.
            QVERIFY(!asked);
            QCOMPARE(asked.error().field, std::string("device"));
            QVERIFY(asked.error().message.find("no CUDA device") != std::string::npos);
            QCOMPARE(*automatic, std::string("cpu"));
        }
    }

    void unknownDevicesAreRefusedWithTheChoices() {
        for (const char* bad : {"gpu", "", "cuda:x", "cuda:-1", "CPU"}) {
            const auto choice = dpmix::runtime::chooseDevice(bad);
            QVERIFY2(!choice, bad);
            QCOMPARE(choice.error().field, std::string("device"));
        }
        const auto unknown = dpmix::runtime::chooseDevice("gpu");
        QVERIFY(unknown.error().message.find("expected auto, cpu, cuda or cuda:N") != std::string::npos);
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
