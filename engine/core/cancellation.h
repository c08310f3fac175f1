#pragma once
// Cooperative cancellation: the GUI (or a signal handler) sets the flag, a long stage
// polls it at least once a second and stops at the next safe point.
#include <atomic>
#include <memory>
#include <stdexcept>

namespace dpmix {

class CancellationToken {
public:
    CancellationToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
    void cancel() const { flag_->store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return flag_->load(std::memory_order_relaxed); }

private:
    std::shared_ptr<std::atomic<bool>> flag_;  // shared, so copies observe the same request
};

/// Thrown by a stage that noticed a cancellation request; the runner marks the run cancelled.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled by the user") {}
};

inline void throwIfCancelled(const CancellationToken& token) {
    if (token.isCancelled()) throw Cancelled();
}

}  // namespace dpmix
