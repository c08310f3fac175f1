#pragma once
// How a program that trains sets up its process — one place, so that dpmix, the workbench and
// bench_dp_step (which must measure steps as the programs run them) cannot drift apart.

namespace dpmix::runtime {

/// First thing in main() of a program that trains: OpenBLAS's workers kept from spinning
/// (relaunchWithQuietBlasThreads, blas_threads.h: this may restart the program), glibc's heap
/// kept for reuse between steps (tuneMallocForTraining, engine/core/malloc_tuning.h), and
/// LibTorch's CPU allocator keeping large blocks (installLargeBlockCache, large_block_cache.h).
void setUpForTraining(char** argv);

}  // namespace dpmix::runtime
