#include "app/cli/device_option.h"

#include "app/cli/cli_support.h"
#include "engine/runtime/runtime_info.h"

namespace dpmix::cli {

void addDeviceOption(CLI::App& command, std::string& requested) {
    command
        .add_option("--device", requested,
                    "where the models train: auto (CUDA when this LibTorch build sees a GPU, else the CPU), cpu, "
                    "cuda or cuda:N; recorded in each run's config (default auto)")
        ->default_str("auto");
}

Result<std::string> commandDevice(const std::string& requested) {
    auto device = runtime::chooseDevice(requested.empty() ? "auto" : requested);
    if (!device) return Error{cliMessage(device.error())};
    return device;
}

}  // namespace dpmix::cli
