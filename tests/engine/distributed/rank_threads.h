#pragma once
// W ranks of one process group, each on a thread of this test process (c10d's Gloo groups over
// loopback work the same between threads as between processes): a store on a free port, every
// rank joined, then `body(group)` on each rank's thread.
#include "engine/distributed/rank_group.h"

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dpmix::distributed::rank_threads {

inline RankAddress loopback(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    RankAddress a;
    a.timeout = timeout;
    return a;
}

/// Runs body(rank's group) on W threads; an error in hosting, connecting or joining throws.
inline void onRanks(int world, const std::function<void(RankGroup&)>& body,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    auto host = RankStore::host(loopback(timeout), world);
    if (!host) throw std::runtime_error(host.error().message);
    RankAddress address = loopback(timeout);
    address.port = host->port();
    std::vector<std::string> errors(static_cast<std::size_t>(world));
    auto rankMain = [&](int rank) {
        auto store = rank == 0 ? host : RankStore::connect(address);
        if (!store) {
            errors[static_cast<std::size_t>(rank)] = store.error().message;
            return;
        }
        auto group = RankGroup::join(*store, rank, world);
        if (!group) {
            errors[static_cast<std::size_t>(rank)] = group.error().message;
            return;
        }
        RankGroup joined = *group;
        body(joined);
    };
    std::vector<std::thread> others;
    for (int r = 1; r < world; ++r) others.emplace_back(rankMain, r);
    rankMain(0);
    for (auto& t : others) t.join();
    for (const auto& e : errors)
        if (!e.empty()) throw std::runtime_error(e);
}

}  // namespace dpmix::distributed::rank_threads
