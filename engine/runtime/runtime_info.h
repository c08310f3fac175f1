#pragma once
// What `dpmix doctor` reports: the compute runtime the engine will use.
#include <string>

namespace dpmix::runtime {

struct RuntimeInfo {
    std::string torchVersion;
    std::string blasName;
    std::string blasPath;
    int threads = 0;              // torch intra-op threads
    std::string parallelBackend;  // at::get_parallel_info(), first line
    bool cudaAvailable = false;
    int cudaDevices = 0;
    double matmulMs = 0.0;  // one 512x512 float matmul; reference BLAS takes ~100x longer
};

/// Probes the runtime (runs one small matmul, so it takes a few milliseconds).
RuntimeInfo probeRuntime();

/// The device a run uses: "cuda" when requested-or-auto and available, else "cpu".
/// `requested` is "auto", "cpu" or "cuda"; "cuda" without a GPU falls back to "cpu" and
/// says so in `note`.
struct DeviceChoice {
    std::string device;
    std::string note;
};
DeviceChoice chooseDevice(const std::string& requested);

/// Sets torch's intra-op thread count once at start-up (0 = leave torch's default).
void setThreads(int threads);

}  // namespace dpmix::runtime
