#pragma once
// SHA-256 (FIPS 180-4) for the project file's tamper-evident hash chain and the content-hash
// names of stored model weights. Small and dependency-free so the project module needs no
// crypto library; it is not used for anything secret.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dpmix::project {

class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }
    /// Lower-case hex digest (64 characters). The object must not be updated afterwards.
    std::string hexDigest();

private:
    void compressBlock(const std::uint8_t* block);
    std::uint32_t state_[8];
    std::uint8_t buffer_[64];
    std::size_t bufferSize_ = 0;
    std::uint64_t totalBytes_ = 0;
};

/// Hex SHA-256 of a byte string.
std::string sha256Hex(std::string_view bytes);

}  // namespace dpmix::project
