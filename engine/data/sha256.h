#pragma once
// SHA-256 (FIPS 180-4), written out here so content hashes need no crypto library.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dpmix::data {

class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }
    /// Finishes the hash; the object must not be updated afterwards.
    std::array<std::uint8_t, 32> digest();
    std::string hexDigest();  // lowercase hex of digest()

private:
    void compress(const std::uint8_t* block);
    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t totalBytes_ = 0;
};

std::string sha256Hex(std::string_view data);

}  // namespace dpmix::data
