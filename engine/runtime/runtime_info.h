#pragma once
// What `dpmix doctor` reports: the compute runtime the engine will use.
#include "engine/core/result.h"

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

/// The device a run uses, by LibTorch's name ("cpu", "cuda", "cuda:1"), from the user's request:
/// "auto" is CUDA when this LibTorch build sees a GPU, else the CPU; "cpu"; "cuda" or "cuda:N".
/// An explicit CUDA request where there is none is an error naming what is missing, never a
/// silent fall-back to the CPU (a job sized for a GPU would crawl). docs/GPU.md.
Result<std::string> chooseDevice(const std::string& requested);

/// Sets torch's intra-op thread count once at start-up (0 = leave torch's default).
void setThreads(int threads);

}  // namespace dpmix::runtime
