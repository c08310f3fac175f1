#pragma once
// Internal (torch) header: what RankStore and RankGroup hold — c10d's store and Gloo group.
#include "engine/distributed/rank_group.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace dpmix::distributed {

struct RankStore::Impl {
    c10::intrusive_ptr<c10d::Store> store;  // the TCPStore, or a PrefixStore over it
    std::chrono::milliseconds timeout;
    std::string host;
};

struct RankGroup::Impl {
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    std::chrono::milliseconds timeout;
    int rank = 0, world = 1;
};

namespace detail {

/// Sums `values` (CPU) over the group in place; throws std::runtime_error naming the rank and the
/// cause when the collective fails or passes the group's timeout.
void allreduceSum(RankGroup::Impl& group, at::Tensor& values);
/// `values` to rank `to` / from rank `from` (same shape and dtype on both sides); throws as allreduceSum.
void sendTo(RankGroup::Impl& group, at::Tensor& values, int to, int tag);
void receiveFrom(RankGroup::Impl& group, at::Tensor& values, int from, int tag);
/// Rank `root`'s `values` on every rank (same shape and dtype everywhere); throws as allreduceSum.
void broadcastFrom(RankGroup::Impl& group, at::Tensor& values, int root);

}  // namespace detail

}  // namespace dpmix::distributed
