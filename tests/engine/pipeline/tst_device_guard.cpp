// Device hygiene: every stage keeps its tensors on the run's device. The stages run here on
// LibTorch's "lazy" device — its TorchScript lazy-tensor backend, which computes on the CPU but
// is a device of its own — so a CPU-only machine has a second device to check against. An
// operation that mixes a tensor left on the CPU with the run's tensors stops the process at that
// operation (LibTorch: "Input tensor is not a lazy tensor: CPUFloatType"), where a CUDA run would
// fail with "Expected all tensors to be on the same device": this test fails on any tensor a
// stage creates on another device than the one requested and then computes with. The lazy
// device is slightly stricter than CUDA (it also refuses 0-dim CPU tensors, which CUDA accepts
// by copying them every time). DPMIX_TEST_DEVICE=cuda runs the same stages on a GPU
// (scripts/gpu-check.sh). docs/GPU.md, "Device hygiene".
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/experiment_runs/psg_stage.h"
#include "engine/pipeline/study_runner.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_opener.h"
#include "engine/train/causal_lm.h"
#include "engine/train/lm_training.h"
#include "engine/train/model.h"
#include "tiny_image_study.h"

#include "tests/support/unit_test.h"

#include <nlohmann/json.hpp>

#include <ATen/ATen.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>

#include <sys/wait.h>
#include <unistd.h>

// Declared here instead of including torch/csrc/lazy/ts_backend/ts_backend_impl.h, whose
// includes would add half a minute of compile time for this one call.
namespace torch::lazy {
void InitTorchScriptBackend();
}

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::audit_runs;
using namespace dpmix::experiment_runs;

namespace {

// The device under test: LibTorch's lazy-tensor device unless DPMIX_TEST_DEVICE names another.
const std::string kDevice = dpmix::test_support::environment("DPMIX_TEST_DEVICE", "lazy");

std::string specText(const std::string& finetuneMechanism) {
    return R"({
  "name": "tiny-device",
)" + testing::tinyStudyData() +
           R"(  "privacy": {"epsilon": 4, "delta": 1e-5, "rho": 0.3, "composition": "parallel"},
  "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 3},
             "pretrain": {"batch": 32, "lr": 0.1, "steps": 2},
             "finetune": {"batch": 64, "lr": 0.05, "steps": 2, "clip": 1.0, "mechanism": ")" +
           finetuneMechanism + R"("}},
  "psg": {"images_per_class": 1, "iterations": 1, "batch_loop": 2, "batch": 16,
          "network_width": 4, "network_depth": 2, "evaluations": 1, "evaluation_epochs": 2, "dp_sgd_steps": 2},
  "seeds": [0]
})";
}

}  // namespace

class TestDeviceGuard : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    project::ProjectFile freshProject(const std::string& name, const std::string& mechanism) {
        const std::string d = dir_.path();
        std::ofstream(d + "/" + name + ".json") << specText(mechanism);
        auto created = project::createProjectFromSpecFile(d + "/" + name + ".json", d + "/" + name + ".dpmix",
                                                          testing::dataLayerSummarizer());
        if (!created) throw std::runtime_error(created.error().message);
        return std::move(created).value();
    }

    static StudyRunOptions onTheGuardedDevice() {
        StudyRunOptions o;
        o.stages = {"proxies", "mixture", "downstream"};
        o.proxy = testing::quickProxy();
        o.randomSearchCandidates = 3;
        o.device = kDevice;
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        train::setTorchThreads(1);
        if (kDevice == "lazy") torch::lazy::InitTorchScriptBackend();
        QVERIFY(dir_.isValid());
        testing::writeStudyImages(dir_.path(), "pub", 120, 1);
        testing::writeStudyImages(dir_.path(), "sens", 300, 2);
    }

    // The premise of this test: on the guarded device, computing with a tensor left on the CPU
    // stops the process (run in a child, which must die of SIGABRT; a tensor on the device is fine).
    void aTensorLeftOnTheCpuStopsTheRun() {
        if (kDevice != "lazy") QSKIP("the lazy device's check; CUDA throws instead");
        auto childDies = [](bool mixed) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                std::freopen("/dev/null", "w", stderr);  // LibTorch's and Qt Test's crash reports
                const at::Tensor onDevice = at::ones({3}).to(at::Device(kDevice));
                const at::Tensor other = mixed ? at::ones({3}) : at::ones({3}).to(at::Device(kDevice));
                (void)(onDevice + other).sum().item<float>();
                ::_exit(0);
            }
            int status = 0;
            ::waitpid(pid, &status, 0);
            return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
        };
        QVERIFY(childDies(true));
        QVERIFY(!childDies(false));
    }

    // The whole image study — proxy, the mixture step, pretraining on the mixture, DP-SGD
    // fine-tuning, evaluation — for every method, and each run records the device.
    void theImageStudyStaysOnTheRequestedDevice() {
        auto project = freshProject("dpsgd", "dp-sgd");
        auto report = runStudy(project, onTheGuardedDevice());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->downstream.size(), methods::allMethodNames().size() * 2);  // 2 tasks
        std::map<std::string, int> withDevice;
        for (const auto& run : project.runs().value()) {
            QCOMPARE(project::toString(run.status), std::string("done"));
            const auto config = nlohmann::json::parse(run.configJson);
            if (config.contains("device")) {
                QCOMPARE(config.at("device").get<std::string>(), std::string(kDevice));
                ++withDevice[run.method];
            }
        }
        QCOMPARE(withDevice["proxy"], 1);
        for (const auto& method : methods::allMethodNames()) QCOMPARE(withDevice[method], 2);
    }

    // The Dirichlet mechanism's fine-tuning draws its noise through its own path.
    void theDirichletFineTuningStaysOnTheRequestedDevice() {
        auto project = freshProject("dirichlet", "dirichlet");
        StudyRunOptions o = onTheGuardedDevice();
        o.methods = {"dp-mixmin"};
        auto report = runStudy(project, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->downstream.size(), std::size_t(2));
    }

    void privateSetGenerationStaysOnTheRequestedDevice() {
        auto project = freshProject("psg", "dp-sgd");
        PsgStageOptions o;
        o.device = kDevice;
        auto report = runPsgStage(project, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        const auto config = nlohmann::json::parse(project.run(report->runId).value().configJson);
        QCOMPARE(config.at("device").get<std::string>(), std::string(kDevice));
    }

    void theTrainingAuditStaysOnTheRequestedDevice() {
        auto project = freshProject("audit", "dp-sgd");
        for (auto mechanism : {training_audit::AuditedMechanism::DpSgd, training_audit::AuditedMechanism::Dirichlet}) {
            TrainingAuditStageOptions o;
            o.task = "ab";
            o.mechanism = mechanism;
            o.runs = 2;
            o.examples = 30;
            o.batch = 10;
            o.steps = 2;
            o.threads = 1;
            o.device = kDevice;
            auto report = runTrainingAuditStage(project, o);
            QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        }
    }

    void theLanguageModelStaysOnTheRequestedDevice() {
        auto spec = train::TransformerSpecBuilder().vocabulary(13).layers(1).width(8).heads(2).context(6).build();
        QVERIFY(spec.ok());
        train::CausalLm lm = train::CausalLm::create(*spec, 1, kDevice);
        std::vector<std::int32_t> a, b;
        for (int i = 0; i < 60; ++i) {
            a.push_back(i % 13);
            b.push_back((3 * i) % 13);
        }
        train::LmPretrainParams pre;
        pre.steps = 2;
        pre.batchSize = 4;
        const std::vector<double> lambda{0.5, 0.5};
        QVERIFY(train::pretrainCausalLm(lm, {a, b}, lambda, pre).ok());
        train::LmDpParams dp;
        dp.expectedUsers = 1;
        dp.steps = 2;
        dp.sigma = 1.0;
        privacy::Ledger ledger;
        QVERIFY(train::finetuneCausalLmDpSgd(lm, {a, b, a}, dp, ledger).ok());
        QVERIFY(train::causalLmPerplexity(lm, {b}).ok());
    }

    // A device this build cannot run on is refused before anything is stored.
    void anUnknownDeviceIsRefusedBeforeAnyRun() {
        auto project = freshProject("refused", "dp-sgd");
        StudyRunOptions o = onTheGuardedDevice();
        o.device = "tpu";
        auto report = runStudy(project, o);
        QVERIFY(!report.ok());
        QCOMPARE(report.error().field, std::string("device"));
        QVERIFY(project.runs().value().empty());
        PsgStageOptions p;
        p.device = "cuda:7";
        QCOMPARE(checkPsgValues(p).value_or(Error{}).field, std::string("device"));
    }
};

QTEST_APPLESS_MAIN(TestDeviceGuard)
#include "tst_device_guard.moc"
