// The CPU allocator that keeps large blocks for reuse (engine/runtime/large_block_cache.h): once
// installed, LibTorch allocates through it; a freed block of at least 16 MiB serves the next
// tensor of its size (the same address, no new pages), smaller ones do not stay, the cap is kept,
// and arithmetic on reused memory gives the same results as on fresh memory.
#include "engine/runtime/large_block_cache.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>

#include "tests/support/unit_test.h"

using namespace dpmix::runtime;

class TestLargeBlockCache : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { installLargeBlockCache(std::size_t(256) << 20); }

    void aFreedLargeBlockServesTheNextTensorOfItsSize() {
        const auto before = largeBlockCacheStats();
        void* first = nullptr;
        {
            at::Tensor big = at::empty({256, 64, 28, 28});  // 49 MiB: the CNN's widest activation
            first = big.data_ptr();
            QCOMPARE(reinterpret_cast<std::uintptr_t>(first) % 64, std::uintptr_t(0));
        }
        QCOMPARE(largeBlockCacheStats().fresh, before.fresh + 1);
        QVERIFY(largeBlockCacheStats().cachedBytes >= std::size_t(256) * 64 * 28 * 28 * 4);
        at::Tensor again = at::empty({256, 64, 28, 28});
        QCOMPARE(again.data_ptr(), first);
        QCOMPARE(largeBlockCacheStats().reused, before.reused + 1);
    }

    void smallBlocksAreNotKept() {
        const auto before = largeBlockCacheStats();
        { at::Tensor small = at::empty({1000}); }
        QCOMPARE(largeBlockCacheStats().cachedBytes, before.cachedBytes);
        QCOMPARE(largeBlockCacheStats().fresh, before.fresh);
    }

    void theCapIsKept() {
        releaseLargeBlockCache();
        QCOMPARE(largeBlockCacheStats().cachedBytes, std::size_t(0));
        {
            // Three 100 MiB blocks freed together: two fit under the 256 MiB cap, the third is freed.
            std::vector<at::Tensor> blocks;
            for (int i = 0; i < 3; ++i) blocks.push_back(at::empty({25 * 1024 * 1024}));
        }
        const auto stats = largeBlockCacheStats();
        QCOMPARE(stats.capBytes, std::size_t(256) << 20);
        QCOMPARE(stats.cachedBytes, std::size_t(200) << 20);
    }

    void reusedMemoryGivesTheSameResults() {
        at::manual_seed(7);
        const at::Tensor a = at::randn({2048, 2048});  // 16 MiB: cached
        const at::Tensor fresh = at::matmul(a, a).sum(1);
        { at::Tensor scratch = at::full({2048, 2048}, 3.0f); }  // leaves non-zero bytes in a cached block
        const at::Tensor reused = at::matmul(a, a).sum(1);
        QVERIFY(at::equal(fresh, reused));
        QVERIFY(c10::GetCPUAllocator()->raw_deleter() != nullptr);  // raw allocation works through it too
        void* raw = c10::GetCPUAllocator()->raw_allocate(std::size_t(20) << 20);
        c10::GetCPUAllocator()->raw_deallocate(raw);
    }
};

QTEST_APPLESS_MAIN(TestLargeBlockCache)
#include "tst_large_block_cache.moc"
