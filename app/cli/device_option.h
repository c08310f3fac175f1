#pragma once
// `--device auto|cpu|cuda|cuda:N` of every command that trains a model (docs/GPU.md).
#include "engine/core/result.h"

#include <CLI/CLI.hpp>

#include <string>

namespace dpmix::cli {

/// Adds --device to `command`, writing the user's spelling into `requested` (default "auto").
void addDeviceOption(CLI::App& command, std::string& requested);

/// The device the command's runs use (runtime::chooseDevice), or the error in the command line's
/// words ("--device = cuda: no CUDA device is available ...").
Result<std::string> commandDevice(const std::string& requested);

}  // namespace dpmix::cli
