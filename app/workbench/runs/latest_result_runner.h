#pragma once
// Runs a short computation off the GUI thread after a brief pause in typing, and applies only
// the newest result: a result that arrives after a newer request was made is dropped, so a
// slow answer never overwrites a fresher one.
#include <QObject>

#include <atomic>
#include <functional>
#include <memory>

class QThreadPool;
class QTimer;

namespace dpmix::workbench {

class LatestResultRunner : public QObject {
    Q_OBJECT

public:
    /// The computation runs on QThreadPool and returns what to do on the GUI thread.
    using Computation = std::function<std::function<void()>()>;

    explicit LatestResultRunner(int debounceMs = 40, QObject* parent = nullptr);
    ~LatestResultRunner() override;

    /// Replaces any pending request; the previous one's result (if still running) is dropped.
    void submit(Computation computation);
    /// Runs `computation` right away (no debounce), still off the GUI thread.
    void submitNow(Computation computation);

    bool isIdle() const;

Q_SIGNALS:
    /// A result was applied on the GUI thread.
    void applied();

private:
    void launch();

    QTimer* debounce_;
    QThreadPool* pool_;  // one thread: computations run one at a time, in order
    Computation pending_;
    // The newest request's number, shared with the worker so a superseded request that has
    // not started yet is skipped instead of computed.
    std::shared_ptr<std::atomic<quint64>> generation_;
    int inFlight_ = 0;
};

}  // namespace dpmix::workbench
