#pragma once
// The ranks of one data-parallel run (docs/CLUSTER.md, "Ranks"): a rendezvous store (c10d's
// TCPStore: rank 0 listens, the others connect) and a process group over it (c10d's
// ProcessGroupGloo, CPU tensors over TCP). Torch-free handles (pimpl); the collectives the
// training loop uses are in detail/group_exchange.h. Every wait has a deadline — joining,
// reading the store, each collective — so a rank that dies ends the others' wait with an error,
// never a hang.
#include "engine/core/result.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dpmix::distributed {

/// Where the ranks meet and how long any of them waits for the others.
struct RankAddress {
    std::string host = "127.0.0.1";
    int port = 0;  // rank 0 with 0: a free port, which RankStore::port() then says
    std::chrono::milliseconds timeout{30000};
};

/// The key-value store the ranks meet at; rank 0 hosts it.
class RankStore {
public:
    /// Rank 0: listens on address.host:address.port for world − 1 other ranks.
    static Result<RankStore> host(const RankAddress& address, int world);
    /// Ranks 1..W−1: connects to rank 0's store (an error after the timeout).
    static Result<RankStore> connect(const RankAddress& address);

    int port() const;
    std::chrono::milliseconds timeout() const;
    /// Small values between ranks (a job description): set once, read by the others (waiting up
    /// to the timeout for the key).
    Status put(const std::string& key, const std::string& value);
    Result<std::string> get(const std::string& key);
    /// Whether `key` is set now (no wait); an error when rank 0's store is gone.
    Result<bool> has(const std::string& key);
    /// The same store seen under `prefix` (its keys apart from the others'): one group per
    /// fine-tuning when the ranks outlive it (slurm_ranks.h).
    RankStore prefixed(const std::string& prefix) const;

    struct Impl;
    Impl& impl() const { return *impl_; }

private:
    static Result<RankStore> open(const RankAddress& address, bool isServer, int world);
    explicit RankStore(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<Impl> impl_;
};

/// W ranks joined over one store. Joining waits (up to the timeout) for all W.
class RankGroup {
public:
    static Result<RankGroup> join(const RankStore& store, int rank, int world);

    int rank() const;
    int world() const;
    std::chrono::milliseconds timeout() const;

    /// Rank `root`'s values on every rank (the others' vectors are resized to root's length,
    /// which they learn first). Errors name the rank and the cause (a rank gone, a timeout).
    Status broadcast(std::vector<float>& values, int root = 0);
    Status broadcast(std::vector<std::int64_t>& values, int root = 0);
    /// Point to point: `values` to rank `to`, or rank `from`'s into `values` (resized to its
    /// length, which comes first); both sides name the same `tag` and call in the same order.
    Status send(const std::vector<float>& values, int to, int tag);
    Status send(const std::vector<std::int64_t>& values, int to, int tag);
    Status receive(std::vector<float>& values, int from, int tag);
    Status receive(std::vector<std::int64_t>& values, int from, int tag);
    /// Sum over the ranks, in place.
    Status sum(std::vector<double>& values);

    struct Impl;
    Impl& impl() const { return *impl_; }

private:
    explicit RankGroup(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<Impl> impl_;
};

}  // namespace dpmix::distributed
