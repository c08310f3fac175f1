#pragma once

namespace dpmix {
/// Raise glibc's mmap and trim thresholds so that training loops which free and re-allocate
/// large tensors every step reuse heap memory instead of page-faulting fresh mmaps (up to 10x
/// slower DP-SGD steps otherwise; docs/DEVELOPING.md, "BLAS and malloc"). Call once at the top
/// of main().
/// Returns false where the C library does not support it (non-glibc).
bool tuneMallocForTraining();
}  // namespace dpmix
