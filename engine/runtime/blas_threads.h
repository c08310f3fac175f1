#pragma once
// OpenBLAS's worker threads, kept from spinning on the cores torch's threads need.
//
// Debian's OpenBLAS (libopenblas0-pthread) keeps its own thread pool beside torch's OpenMP pool.
// After each BLAS call its workers spin for up to 2^28 cycles (about 0.1 s) before they sleep, on
// the very cores torch's OpenMP threads need for the next convolution or element-wise op: on two
// cores a CNN step's time scattered between 50 and 230 ms, and 40 steps took 23 s instead of 13
// (docs/BENCHMARKS.md, "OpenBLAS's spinning threads"). OPENBLAS_THREAD_TIMEOUT=4 (2^4 cycles,
// OpenBLAS's minimum) removes that without costing the GEMM-heavy transformer anything; but
// OpenBLAS reads it only once, when it is loaded, before main() runs.

namespace dpmix::runtime {

/// The variable and the value dpmix's programs run with.
inline constexpr const char* kBlasThreadTimeoutVariable = "OPENBLAS_THREAD_TIMEOUT";
inline constexpr const char* kBlasThreadTimeoutValue = "4";

/// For programs that train: call first thing in main(). Where OPENBLAS_THREAD_TIMEOUT is unset it
/// sets it and restarts the program image with execv (the same process id, arguments, open files
/// and environment otherwise), so the loaded OpenBLAS reads it. Returns without doing anything
/// where the variable is already set — by the user (whose value is kept), by a parent dpmix
/// process, by the test harness — and returns after a failed restart (the program then runs on
/// with OpenBLAS's default, correct but slower). Linux only (it needs /proc/self/exe).
void relaunchWithQuietBlasThreads(char** argv);

/// The value of OPENBLAS_THREAD_TIMEOUT this process runs with ("" when unset), for `dpmix doctor`.
const char* blasThreadTimeout();

}  // namespace dpmix::runtime
