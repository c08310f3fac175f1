#pragma once
// Independent repeated runs (audit runs, sweep seeds) spread over a std::thread pool.
//
// Determinism: job i always gets the same inputs (its seed comes from seeds::derive(base,
// stream, i) of engine/core/seed_derivation.h, never from a shared generator) and writes only
// its own output slot, so results do not depend on the thread count or on scheduling.
//
// Progress is reported from the calling thread only (callbacks need not be thread-safe); the
// cancellation token is polled by the jobs and by the waiting caller.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace dpmix::audit {

/// Threads to use for `threads` (0 = std::thread::hardware_concurrency(), at least 1).
int resolveThreads(int threads);

/// A job returns nothing on success, or an Error that stops the batch. It may throw
/// dpmix::Cancelled (it should poll the token) — the batch then stops.
using IndexedJob = std::function<Status(long long index)>;

/// Runs job(0..count-1) on `threads` threads. Returns the first Error (by job index) if any job
/// failed; throws dpmix::Cancelled if the token was set; rethrows any other exception.
/// Reports {stage, done, count} about every 0.2 s and once at the end.
Status runIndexedJobs(long long count, int threads, const IndexedJob& job, const std::string& stage,
                      const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::audit
