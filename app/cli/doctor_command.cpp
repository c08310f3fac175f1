// `dpmix doctor`: what the engine will compute with (LibTorch, BLAS, threads, CUDA).
#include "app/cli/command.h"
#include "engine/core/version.h"
#include "engine/runtime/blas_threads.h"
#include "engine/runtime/runtime_info.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace dpmix::cli {

namespace {

struct DoctorArgs {
    bool json = false;
};

}  // namespace

void registerDoctorCommand(CLI::App& app, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<DoctorArgs>();
    auto* doctor = app.add_subcommand("doctor", "Report the compute runtime: LibTorch, BLAS, threads, CUDA");
    doctor->add_flag("--json", args->json, "print one JSON object");
    doctor->callback([&ctx, args] {
        const auto info = runtime::probeRuntime();
        // The reference BLAS needs ~100 ms for this matmul; OpenBLAS a few ms (docs/DEVELOPING.md, "BLAS and malloc").
        const bool slowBlas = info.blasName == "reference BLAS" || info.matmulMs > 50.0;
        if (args->json) {
            nlohmann::ordered_json j{{"dpmix", versionString()},
                                     {"torch", info.torchVersion},
                                     {"blas", info.blasName},
                                     {"blas_path", info.blasPath},
                                     {"threads", info.threads},
                                     {"parallel_backend", info.parallelBackend},
                                     {"blas_thread_timeout", runtime::blasThreadTimeout()},
                                     {"cuda_available", info.cudaAvailable},
                                     {"cuda_devices", info.cudaDevices},
                                     {"matmul_512_ms", info.matmulMs},
                                     {"blas_ok", !slowBlas}};
            std::cout << j.dump(2) << '\n';
        } else {
            std::cout << "dpmix            " << versionString() << '\n'
                      << "LibTorch         " << info.torchVersion << '\n'
                      << "BLAS             " << info.blasName
                      << (info.blasPath.empty() ? "" : "  (" + info.blasPath + ")") << '\n'
                      << "threads          " << info.threads << "  (" << info.parallelBackend << ")\n"
                      << "OpenBLAS spin    " << runtime::kBlasThreadTimeoutVariable << "="
                      << runtime::blasThreadTimeout() << '\n'
                      << "CUDA             "
                      << (info.cudaAvailable ? "available, " + std::to_string(info.cudaDevices) + " device(s)"
                                             : "not available")
                      << '\n'
                      << "512x512 matmul   " << info.matmulMs << " ms\n";
            if (slowBlas)
                std::cout << "WARNING: a slow BLAS is in use; install libopenblas0-pthread (scripts/setup.sh does)\n";
        }
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
