#include "engine/runtime/runtime_info.h"

#include "engine/runtime/blas_probe.h"

// ATen and torch/cuda.h rather than <torch/torch.h> (the whole C++ API, nn and optim included):
// this file is on the first command's path, and the full API tripled its compile time.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/cuda.h>
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
    auto a = at::ones({512, 512});
    auto c = at::mm(a, a);
    const auto start = std::chrono::steady_clock::now();
    c = at::mm(a, c);
    const auto stop = std::chrono::steady_clock::now();
    info.matmulMs = std::chrono::duration<double, std::milli>(stop - start).count();

    const BlasLibrary blas = loadedBlas();
    info.blasName = blas.name;
    info.blasPath = blas.path;
    return info;
}

Result<std::string> chooseDevice(const std::string& requested) {
    const bool cuda = torch::cuda::is_available();
    const int gpus = cuda ? static_cast<int>(torch::cuda::device_count()) : 0;
    if (requested == "auto") return std::string(cuda ? "cuda" : "cpu");
    if (requested == "cpu") return std::string("cpu");
    if (requested == "cuda" || requested.rfind("cuda:", 0) == 0) {
        if (!cuda)
            return Error{"device = " + requested + ": no CUDA device is available (this LibTorch build " +
                             (at::hasCUDA() ? "has CUDA but sees no GPU" : "has no CUDA") +
                             "); use cpu or auto, or build against a CUDA LibTorch (docs/GPU.md)",
                         "device"};
        if (requested == "cuda") return requested;
        const std::string index = requested.substr(5);
        const bool digits =
            !index.empty() && index.size() < 4 && index.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoi(index) >= gpus)
            return Error{"device = " + requested + ": expected cuda:N with N from 0 to " + std::to_string(gpus - 1),
                         "device"};
        return requested;
    }
    return Error{"device = " + requested + ": expected auto, cpu, cuda or cuda:N", "device"};
}

void setThreads(int threads) {
    if (threads > 0) at::set_num_threads(threads);
}

}  // namespace dpmix::runtime
