#pragma once
// Internal header: a parallel loop over contiguous ranges on torch's intra-op OpenMP threads.
//
// Why not at::parallel_for: in LibTorch 1.13 it is an inline template that runs in parallel only
// when the calling translation unit is compiled with OpenMP (ATen/ParallelOpenMP.h tests _OPENMP);
// the engine's torch files share one precompiled ATen header built without it, so there every
// at::parallel_for ran serially. This one file is compiled with OpenMP (engine/train/CMakeLists.txt)
// and uses the same libgomp as torch, so the loop shares torch's pool and its thread count.
#include <cstdint>
#include <functional>

namespace dpmix::train::detail {

/// body(begin, end) over [0, count) in at most `threads` contiguous ranges, one per thread, in
/// parallel where the build has OpenMP and the caller is not already inside a parallel region;
/// serially otherwise. An exception from any range is rethrown here after all ranges end.
/// Callers pass at::get_num_threads().
void parallelRanges(std::int64_t count, int threads, const std::function<void(std::int64_t, std::int64_t)>& body);

/// Whether parallelRanges can run on more than one thread in this build.
bool parallelRangesAvailable();

}  // namespace dpmix::train::detail
