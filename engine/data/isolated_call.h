#pragma once
// Runs a piece of work in a child process and hands its bytes back. Why: Debian's GDCM is built
// with its assertions on, so a damaged DICOM file can abort() the whole program inside the
// library (a truncated file header does: gdcm::FileMetaInformation::ReadCompat asserts
// is.good()). In a child, such an abort, a crash or a hang (past the time limit) becomes an Error
// for that one file, and the caller — the dpmix command, the workbench — goes on.
// The child only runs `work` and writes to a pipe; it never returns into the caller's code.
#include "engine/core/result.h"

#include <functional>
#include <string>

namespace dpmix::data {

/// `work`'s result from a forked child: its bytes, or its Error; an Error saying what happened
/// when the child died by a signal (e.g. "aborted (SIGABRT)") or ran past `seconds`.
Result<std::string> runIsolated(const std::function<Result<std::string>()>& work, int seconds);

}  // namespace dpmix::data
