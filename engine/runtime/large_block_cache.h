#pragma once
// Reuse of the large CPU tensor blocks a training step allocates and frees every step.
//
// glibc serves every allocation of 32 MiB or more (its largest mmap threshold on 64-bit) with a
// fresh mmap, and munmap returns it on free: the kernel then zero-fills each 4 KiB page on first
// touch, every time. A CNN step at batch 256 allocates such blocks for its widest activations and
// their gradients (256 × 64 channels × 28 × 28 floats = 49 MiB), so a demo-sized run paid 4.5
// million page faults and 72 s of system time (docs/BENCHMARKS.md, "Large CPU blocks"). This
// allocator, installed as LibTorch's CPU allocator, keeps freed blocks of at least
// kMinCachedBytes (rounded up to 2 MiB) for the next request of the same size, up to a total cap;
// smaller blocks go straight to the C library, whose heap already reuses them. Memory contents
// are never relied on (an empty tensor is uninitialised either way), so results do not change.
#include <cstddef>

namespace dpmix::runtime {

/// Blocks at least this large are kept for reuse.
inline constexpr std::size_t kMinCachedBytes = std::size_t(16) << 20;

struct LargeBlockCacheStats {
    std::size_t reused = 0;       // allocations served from the cache
    std::size_t fresh = 0;        // large allocations that were not
    std::size_t cachedBytes = 0;  // bytes held for reuse now
    std::size_t capBytes = 0;     // the most it holds
};

/// Makes the caching allocator LibTorch's CPU allocator for the rest of the process; blocks that
/// would take the cache past `capBytes` are freed instead. Idempotent (a second call only sets
/// the cap). Call before training; tensors allocated before keep their own deleter.
void installLargeBlockCache(std::size_t capBytes = std::size_t(1) << 30);

/// The cache's counters (all zero before installLargeBlockCache).
LargeBlockCacheStats largeBlockCacheStats();

/// Frees every block held for reuse (the allocator stays installed).
void releaseLargeBlockCache();

}  // namespace dpmix::runtime
