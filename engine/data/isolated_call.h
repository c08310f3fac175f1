#pragma once
// Runs pieces of work in a child process and hands their bytes back. Why: Debian's GDCM is built
// with its assertions on, so a damaged DICOM file can abort() the whole program inside the
// library (a truncated file header does: gdcm::FileMetaInformation::ReadCompat asserts
// is.good()). In a child, such an abort, a crash or a hang (past the time limit) becomes an Error
// for that one item, and the caller — the dpmix command, the workbench — goes on.
// One child works through the items in order (a fork of a process holding LibTorch costs ≈10 ms,
// too much per file); when it dies on an item, a new child carries on from the next one.
// A child only runs `work` and writes to a pipe; it never returns into the caller's code.
#include "engine/core/result.h"

#include <cstddef>
#include <functional>
#include <string>

namespace dpmix::data {

/// Calls `work(i)` for i = 0..count-1 in child processes, in order, and `take(i, result)` here as
/// each result arrives: the child's bytes or its Error, or an Error saying what happened when the
/// child died on item i by a signal ("aborted (SIGABRT...)") or spent more than `seconds` on it.
/// `take` returns false to stop early (the child is then stopped). An Error only when no child
/// can be started.
Status runIsolatedEach(std::size_t count, const std::function<Result<std::string>(std::size_t)>& work, int seconds,
                       const std::function<bool(std::size_t, Result<std::string>)>& take);

/// One piece of work, the same way.
Result<std::string> runIsolated(const std::function<Result<std::string>()>& work, int seconds);

}  // namespace dpmix::data
