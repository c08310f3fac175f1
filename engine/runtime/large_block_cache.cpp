#include "engine/runtime/large_block_cache.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <vector>

namespace dpmix::runtime {

namespace {

// Each block carries its size in a header before the data, so one deleter (the raw deleter
// LibTorch may ask for) frees any block; 64 bytes keep the data at the 64-byte alignment
// LibTorch's own CPU allocator gives.
constexpr std::size_t kHeader = 64;
constexpr std::size_t kRound = std::size_t(2) << 20;

std::size_t blockSizeFor(std::size_t n) {
    if (n < kMinCachedBytes) return n;
    return (n + kRound - 1) / kRound * kRound;
}

class LargeBlockCache final : public c10::Allocator {
public:
    c10::DataPtr allocate(std::size_t n) const override {
        const std::size_t size = blockSizeFor(n);
        void* base = size >= kMinCachedBytes ? take(size) : nullptr;
        if (!base) {
            if (posix_memalign(&base, kHeader, size + kHeader) != 0) throw std::bad_alloc();
            *static_cast<std::size_t*>(base) = size;
        }
        void* data = static_cast<char*>(base) + kHeader;
        return {data, data, &deleteBlock, c10::Device(c10::DeviceType::CPU)};
    }
    c10::DeleterFnPtr raw_deleter() const override { return &deleteBlock; }

    void setCap(std::size_t cap) {
        std::lock_guard lock(mutex_);
        cap_ = cap;
    }
    LargeBlockCacheStats stats() const {
        std::lock_guard lock(mutex_);
        return {reused_, fresh_, cached_, cap_};
    }
    void releaseAll() {
        std::lock_guard lock(mutex_);
        for (auto& [size, blocks] : free_)
            for (void* b : blocks) std::free(b);
        free_.clear();
        cached_ = 0;
    }
    static LargeBlockCache& instance() {
        // Never destroyed: tensors freed during static destruction still find it.
        static auto* cache = new LargeBlockCache();
        return *cache;
    }

private:
    void* take(std::size_t size) const {
        std::lock_guard lock(mutex_);
        auto it = free_.find(size);
        if (it == free_.end() || it->second.empty()) {
            ++fresh_;
            return nullptr;
        }
        void* base = it->second.back();
        it->second.pop_back();
        cached_ -= size;
        ++reused_;
        return base;
    }
    void give(void* base, std::size_t size) {
        {
            std::lock_guard lock(mutex_);
            if (cached_ + size <= cap_) {
                free_[size].push_back(base);
                cached_ += size;
                return;
            }
        }
        std::free(base);
    }
    static void deleteBlock(void* data) {
        if (!data) return;
        void* base = static_cast<char*>(data) - kHeader;
        const std::size_t size = *static_cast<std::size_t*>(base);
        if (size >= kMinCachedBytes)
            instance().give(base, size);
        else
            std::free(base);
    }

    mutable std::mutex mutex_;
    mutable std::map<std::size_t, std::vector<void*>> free_;
    mutable std::size_t cached_ = 0, reused_ = 0, fresh_ = 0;
    std::size_t cap_ = 0;
};

}  // namespace

void installLargeBlockCache(std::size_t capBytes) {
    LargeBlockCache& cache = LargeBlockCache::instance();
    cache.setCap(capBytes);
    static std::once_flag installed;
    // Priority above LibTorch's default allocator (0), so a later default registration keeps ours.
    std::call_once(installed, [&cache] { c10::SetCPUAllocator(&cache, 1); });
}

LargeBlockCacheStats largeBlockCacheStats() { return LargeBlockCache::instance().stats(); }

void releaseLargeBlockCache() { LargeBlockCache::instance().releaseAll(); }

}  // namespace dpmix::runtime
