#include "engine/runtime/runtime_info.h"

#include "engine/runtime/blas_probe.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <chrono>

namespace dpmix::runtime {

RuntimeInfo probeRuntime() {
    RuntimeInfo info;
    info.torchVersion = TORCH_VERSION;
    info.threads = at::get_num_threads();
    const std::string parallel = at::get_parallel_info();
    info.parallelBackend = parallel.substr(0, parallel.find('\n'));
    for (const auto& line : {std::string("ATen parallel backend: ")}) {
        auto pos = parallel.find(line);
        if (pos != std::string::npos) {
            auto end = parallel.find('\n', pos);
            info.parallelBackend = parallel.substr(pos + line.size(), end - pos - line.size());
        }
    }
    info.cudaAvailable = torch::cuda::is_available();
    info.cudaDevices = info.cudaAvailable ? static_cast<int>(torch::cuda::device_count()) : 0;

    // One warm-up matmul loads the BLAS; the second is timed.
    auto a = torch::ones({512, 512});
    auto c = torch::mm(a, a);
    const auto start = std::chrono::steady_clock::now();
    c = torch::mm(a, c);
    const auto stop = std::chrono::steady_clock::now();
    info.matmulMs = std::chrono::duration<double, std::milli>(stop - start).count();

    const BlasLibrary blas = loadedBlas();
    info.blasName = blas.name;
    info.blasPath = blas.path;
    return info;
}

DeviceChoice chooseDevice(const std::string& requested) {
    const bool cuda = torch::cuda::is_available();
    if (requested == "cpu") return {"cpu", ""};
    if (requested == "cuda") {
        if (cuda) return {"cuda", ""};
        return {"cpu", "CUDA was requested but no CUDA device is available; running on the CPU"};
    }
    return {cuda ? "cuda" : "cpu", ""};
}

void setThreads(int threads) {
    if (threads > 0) at::set_num_threads(threads);
}

}  // namespace dpmix::runtime
