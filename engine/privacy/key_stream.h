#pragma once
// The key streams behind privacy::MechanismRng (engine/privacy/mechanism_random.h): a stream
// cipher run on a unique 32-byte key, read in 64-byte blocks numbered from 0.
//  - ChaCha20 (libsodium; Bernstein's original variant: 64-bit block counter, 64-bit nonce, here
//    always zero since every key is used for one stream only). Seeded (reproducible) randomness
//    always uses it, so a seed gives the same stream on every machine; secret randomness uses it
//    where the CPU has no AES instructions (software AES is slow and not constant-time).
//  - AES-256-CTR (OpenSSL's libcrypto, AES-NI/VAES): secret randomness where the CPU has AES
//    instructions, about twice as fast. Block b is the encryption of the 128-bit big-endian
//    counters 4b, 4b + 1, 4b + 2, 4b + 3.
// docs/PRIVACY.md, "Secret randomness", explains the choice.
#include "engine/privacy/randomness_source.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace dpmix::privacy {

enum class KeyStreamKind { ChaCha20, Aes256Ctr };

inline constexpr std::size_t kKeyStreamKeyBytes = 32;
inline constexpr std::size_t kKeyStreamBlockBytes = 64;

/// "ChaCha20" or "AES-256-CTR".
std::string toString(KeyStreamKind kind);

/// True when this CPU has AES instructions (x86 AES-NI, ARMv8 AES), i.e. AES-256-CTR runs in
/// hardware, in constant time.
bool hasHardwareAes();

/// The key stream a MechanismRng of `mode` uses on this machine: seeded → ChaCha20 everywhere;
/// secret → AES-256-CTR with hardware AES, else ChaCha20.
KeyStreamKind keyStreamFor(RandomnessMode mode);

/// What a run's randomness was drawn with, in words, for ledgers and run configs, e.g.
/// "AES-256-CTR (OpenSSL), key from OS entropy" or "ChaCha20 (libsodium), key BLAKE2b(seed, invocation, purpose)".
std::string describeKeyStream(RandomnessMode mode);

/// Writes key-stream blocks [firstBlock, firstBlock + blocks) of `key` (kKeyStreamKeyBytes) to
/// `out` (blocks · 64 bytes). Thread-safe; the same bytes wherever and in whatever pieces it runs.
void writeKeyStream(KeyStreamKind kind, const unsigned char* key, std::uint64_t firstBlock, std::size_t blocks,
                    unsigned char* out);

/// The primitives, with their standard parameters (for the published test vectors):
/// ChaCha20 key stream from 64-byte block `counter` with an 8-byte nonce (original variant), and
/// the AES-256-CTR key stream from a 16-byte initial counter block (incremented as a 128-bit
/// big-endian integer, NIST SP 800-38A). `bytes` need not be a multiple of the block size.
void chacha20KeyStream(const unsigned char* key, const unsigned char* nonce8, std::uint64_t counter, unsigned char* out,
                       std::size_t bytes);
void aes256CtrKeyStream(const unsigned char* key, const unsigned char* counterBlock16, unsigned char* out,
                        std::size_t bytes);

}  // namespace dpmix::privacy
