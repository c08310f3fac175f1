#include "engine/audit/parallel_runs.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace dpmix::audit {
int resolveThreads(int threads) {
    if (threads > 0) return threads;
    return std::max(1u, std::thread::hardware_concurrency());
}

Status runIndexedJobs(long long count, int threads, const IndexedJob& job, const std::string& stage,
                      const ProgressCallback& progress, const CancellationToken& cancel) {
    if (count <= 0) return std::nullopt;
    const int workers = static_cast<int>(std::min<long long>(resolveThreads(threads), count));
    std::atomic<long long> next{0}, done{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable finished;
    std::map<long long, Error> errors;  // by job index: the reported one does not depend on timing
    std::exception_ptr failure;
    bool cancelled = false;

    auto worker = [&] {
        for (;;) {
            if (stop.load() || cancel.isCancelled()) break;
            const long long i = next.fetch_add(1);
            if (i >= count) break;
            try {
                if (auto e = job(i)) {
                    std::lock_guard lock(mutex);
                    errors.emplace(i, *e);
                    stop = true;
                }
            } catch (const Cancelled&) {
                std::lock_guard lock(mutex);
                cancelled = true;
                stop = true;
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure) failure = std::current_exception();
                stop = true;
            }
            done.fetch_add(1);
            finished.notify_all();
        }
        finished.notify_all();
    };

    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(workers));
    for (int t = 0; t < workers; ++t) pool.emplace_back(worker);

    // The caller waits here, reporting progress from its own thread.
    using Clock = std::chrono::steady_clock;
    long long reported = -1;
    auto lastReport = Clock::now() - std::chrono::seconds(1);
    {
        std::unique_lock lock(mutex);
        while (done.load() < count && !stop.load() && !cancel.isCancelled()) {
            finished.wait_for(lock, std::chrono::milliseconds(100));
            const long long d = done.load();
            if (d != reported && d < count && Clock::now() - lastReport >= std::chrono::milliseconds(200)) {
                lastReport = Clock::now();
                lock.unlock();
                report(progress, {stage, d, count, std::to_string(d) + " of " + std::to_string(count) + " runs"});
                reported = d;
                lock.lock();
            }
        }
    }
    for (auto& t : pool) t.join();

    if (failure) std::rethrow_exception(failure);
    if (cancelled || cancel.isCancelled()) throw Cancelled();
    if (!errors.empty()) return errors.begin()->second;
    report(progress, {stage, count, count, std::to_string(count) + " of " + std::to_string(count) + " runs"});
    return std::nullopt;
}

}  // namespace dpmix::audit
