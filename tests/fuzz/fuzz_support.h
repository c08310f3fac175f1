#pragma once
// Shared by the libFuzzer harnesses: a scratch file per process for the readers that take a
// path (the input is written there and read back as the program would read a user's file).
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include <unistd.h>

namespace dpmix::fuzz {

inline std::string scratchPath(const std::string& suffix) {
    return "/tmp/dpmix-fuzz-" + std::to_string(::getpid()) + suffix;
}

inline std::string writeScratch(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
    const std::string path = scratchPath(suffix);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

}  // namespace dpmix::fuzz
