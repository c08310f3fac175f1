#pragma once
// Internal header: which vector instruction set this CPU runs, for the hand-vectorised kernels
// (gaussian_kernel, conv_example_kernel). Each kernel is compiled once per level and chooses at
// run time, so the build itself stays on the baseline ISA and runs on every x86-64 machine.

namespace dpmix::train::detail {

enum class SimdLevel { Portable, Avx2, Avx512 };

/// The widest level this CPU runs (AVX-512F, AVX2, else the portable 4-lane build).
SimdLevel bestSimdLevel();

/// Whether the CPU has fused multiply-add (always so at Avx512; at Avx2 on every CPU we know of,
/// but checked: the kernels that use it fall back to Portable without it).
bool cpuHasFma();

}  // namespace dpmix::train::detail
