#pragma once
// A file-size limit (`ulimit -f`, RLIMIT_FSIZE) kills a process that writes past it with SIGXFSZ:
// no message, and temporary files left behind. Every dpmix program ignores the signal instead,
// so the write fails with EFBIG, which the project file and the data layer report as an error
// ("disk full or file too large") after removing what they had started (docs/RELIABILITY.md).
namespace dpmix {

/// Makes a write past RLIMIT_FSIZE an error (EFBIG) instead of a fatal signal. Call at start-up.
void reportFileSizeLimitAsError();

}  // namespace dpmix
