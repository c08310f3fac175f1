#include "engine/privacy/key_stream.h"

#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <sodium.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace dpmix::privacy {
namespace {

// The ciphers encrypt zeros: their output is the key stream. Read in pieces from this buffer
// (it stays in L1) rather than clearing the output first.
constexpr std::size_t kZeroBytes = 16384;
alignas(64) constexpr unsigned char kZeros[kZeroBytes] = {};

void ensureSodium() {
    static const int status = sodium_init();
    if (status < 0) throw std::runtime_error("libsodium could not be initialised: no secure random source");
}

const EVP_CIPHER* aes256Ctr() {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    // Fetched once: EVP_aes_256_ctr() would look the implementation up again on every initialisation.
    struct Free {
        void operator()(EVP_CIPHER* c) const { EVP_CIPHER_free(c); }
    };
    static const std::unique_ptr<EVP_CIPHER, Free> cipher(EVP_CIPHER_fetch(nullptr, "AES-256-CTR", nullptr));
    if (!cipher) throw std::runtime_error("OpenSSL has no AES-256-CTR");
    return cipher.get();
#else
    return EVP_aes_256_ctr();
#endif
}

}  // namespace

std::string toString(KeyStreamKind kind) { return kind == KeyStreamKind::Aes256Ctr ? "AES-256-CTR" : "ChaCha20"; }

bool hasHardwareAes() {
    // OPENSSL_ia32cap / OPENSSL_armcap override OpenSSL's own CPU detection: we cannot tell then
    // whether it runs AES in hardware, so stay with ChaCha20.
    if (std::getenv("OPENSSL_ia32cap") || std::getenv("OPENSSL_armcap")) return false;
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_AES) != 0;
#elif defined(__aarch64__) && defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_AES) != 0;
#else
    return false;
#endif
}

KeyStreamKind keyStreamFor(RandomnessMode mode) {
    if (mode == RandomnessMode::Seeded) return KeyStreamKind::ChaCha20;  // the same stream on every machine
    static const bool aes = hasHardwareAes();
    return aes ? KeyStreamKind::Aes256Ctr : KeyStreamKind::ChaCha20;
}

std::string describeKeyStream(RandomnessMode mode) {
    if (mode == RandomnessMode::Seeded) return "ChaCha20 (libsodium), key BLAKE2b(seed, invocation, purpose)";
    return keyStreamFor(mode) == KeyStreamKind::Aes256Ctr ? "AES-256-CTR (OpenSSL, hardware AES), key from OS entropy"
                                                          : "ChaCha20 (libsodium), key from OS entropy";
}

void chacha20KeyStream(const unsigned char* key, const unsigned char* nonce8, std::uint64_t counter, unsigned char* out,
                       std::size_t bytes) {
    ensureSodium();
    while (bytes > 0) {
        const std::size_t piece = std::min(bytes, kZeroBytes);  // a multiple of 64 unless it is the last
        crypto_stream_chacha20_xor_ic(out, kZeros, piece, nonce8, counter, key);
        counter += piece / kKeyStreamBlockBytes;
        out += piece;
        bytes -= piece;
    }
}

void aes256CtrKeyStream(const unsigned char* key, const unsigned char* counterBlock16, unsigned char* out,
                        std::size_t bytes) {
    struct Free {
        void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }  // cleanses the key schedule
    };
    const std::unique_ptr<EVP_CIPHER_CTX, Free> ctx(EVP_CIPHER_CTX_new());
    if (!ctx || EVP_EncryptInit_ex(ctx.get(), aes256Ctr(), nullptr, key, counterBlock16) != 1)
        throw std::runtime_error("OpenSSL could not set up AES-256-CTR");
    while (bytes > 0) {
        const std::size_t piece = std::min(bytes, kZeroBytes);
        int written = 0;
        if (EVP_EncryptUpdate(ctx.get(), out, &written, kZeros, static_cast<int>(piece)) != 1 ||
            written != static_cast<int>(piece))
            throw std::runtime_error("OpenSSL AES-256-CTR failed");
        out += piece;
        bytes -= piece;
    }
}

void writeKeyStream(KeyStreamKind kind, const unsigned char* key, std::uint64_t firstBlock, std::size_t blocks,
                    unsigned char* out) {
    if (blocks == 0) return;
    if (kind == KeyStreamKind::ChaCha20) {
        static constexpr unsigned char kNonce[8] = {};  // one stream per key: a zero nonce is safe
        chacha20KeyStream(key, kNonce, firstBlock, out, blocks * kKeyStreamBlockBytes);
        return;
    }
    // 64-byte block b = AES blocks 4b .. 4b + 3: the initial counter is 4b as a 128-bit big-endian number.
    unsigned char counter[16] = {};
    const std::uint64_t high = firstBlock >> 62, low = firstBlock << 2;
    for (int i = 0; i < 8; ++i) {
        counter[7 - i] = static_cast<unsigned char>(high >> (8 * i));
        counter[15 - i] = static_cast<unsigned char>(low >> (8 * i));
    }
    aes256CtrKeyStream(key, counter, out, blocks * kKeyStreamBlockBytes);
}

}  // namespace dpmix::privacy
