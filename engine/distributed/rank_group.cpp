#include "engine/distributed/rank_group.h"

#include "engine/distributed/detail/group_impl.h"

#include <stdexcept>
#include <string>

namespace dpmix::distributed {
namespace {

std::string seconds(std::chrono::milliseconds t) { return std::to_string(t.count() / 1000.0).substr(0, 5) + " s"; }

// c10d reports a dead peer or a missed deadline by throwing; the ranks report it as an error
// that says which rank saw it and what the wait was.
Error groupError(const std::string& what, int rank, std::chrono::milliseconds timeout, const std::exception& e) {
    std::string cause = e.what();
    if (const auto eol = cause.find('\n'); eol != std::string::npos) cause.resize(eol);  // c10's backtrace follows
    return Error{"rank " + std::to_string(rank) + ": " + what +
                 " failed (another rank ended, or did not answer within " + seconds(timeout) + "): " + cause};
}

c10d::TCPStoreOptions storeOptions(const RankAddress& address, bool isServer, int world) {
    c10d::TCPStoreOptions o;
    o.port = static_cast<std::uint16_t>(address.port);
    o.isServer = isServer;
    if (isServer) o.numWorkers = static_cast<std::size_t>(world);
    o.waitWorkers = false;  // joining the group waits for them, with its own deadline
    o.timeout = address.timeout;
    return o;
}

}  // namespace

Result<RankStore> RankStore::open(const RankAddress& address, bool isServer, int world) {
    if (address.port < 0 || address.port > 65535 || (!isServer && address.port == 0))
        return Error{"rank store: port " + std::to_string(address.port) + " is out of range: expected 1..65535" +
                     (isServer ? " or 0 (a free port)" : "")};
    if (address.timeout.count() <= 0) return Error{"rank store: the timeout must be positive"};
    try {
        auto impl = std::make_shared<RankStore::Impl>();
        impl->store = c10::make_intrusive<c10d::TCPStore>(address.host, storeOptions(address, isServer, world));
        impl->timeout = address.timeout;
        impl->host = address.host;
        return RankStore(std::move(impl));
    } catch (const std::exception& e) {
        return groupError(isServer
                              ? "hosting the rank store on " + address.host + ":" + std::to_string(address.port)
                              : "connecting to the rank store at " + address.host + ":" + std::to_string(address.port),
                          isServer ? 0 : -1, address.timeout, e);
    }
}

Result<RankStore> RankStore::host(const RankAddress& address, int world) {
    if (world < 1) return Error{"ranks = " + std::to_string(world) + " is out of range: expected at least 1"};
    return open(address, true, world);
}

Result<RankStore> RankStore::connect(const RankAddress& address) { return open(address, false, 0); }

int RankStore::port() const {
    auto* tcp = dynamic_cast<c10d::TCPStore*>(impl_->store.get());
    return tcp ? tcp->getPort() : 0;
}
std::chrono::milliseconds RankStore::timeout() const { return impl_->timeout; }

Status RankStore::put(const std::string& key, const std::string& value) {
    try {
        impl_->store->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
        return std::nullopt;
    } catch (const std::exception& e) {
        return groupError("writing '" + key + "' to the rank store", -1, impl_->timeout, e);
    }
}

Result<std::string> RankStore::get(const std::string& key) {
    try {
        const std::vector<std::uint8_t> bytes = impl_->store->get(key);  // waits up to the timeout
        return std::string(bytes.begin(), bytes.end());
    } catch (const std::exception& e) {
        return groupError("reading '" + key + "' from the rank store", -1, impl_->timeout, e);
    }
}

Result<bool> RankStore::has(const std::string& key) {
    try {
        return impl_->store->check({key});
    } catch (const std::exception& e) {
        return groupError("asking the rank store for '" + key + "'", -1, impl_->timeout, e);
    }
}

RankStore RankStore::prefixed(const std::string& prefix) const {
    auto impl = std::make_shared<Impl>(*impl_);
    impl->store = c10::make_intrusive<c10d::PrefixStore>(prefix, impl_->store);
    return RankStore(std::move(impl));
}

Result<RankGroup> RankGroup::join(const RankStore& store, int rank, int world) {
    if (world < 1 || rank < 0 || rank >= world)
        return Error{"rank " + std::to_string(rank) + " of " + std::to_string(world) +
                     " is out of range: expected 0 <= rank < ranks"};
    try {
        auto options = c10d::ProcessGroupGloo::Options::create(store.timeout());
        // Local ranks talk over loopback; on a cluster Gloo binds to the address the node's
        // hostname resolves to.
        const std::string& host = store.impl().host;
        options->devices.push_back(host == "127.0.0.1" || host == "localhost"
                                       ? c10d::ProcessGroupGloo::createDeviceForHostname(host)
                                       : c10d::ProcessGroupGloo::createDefaultDevice());
        auto impl = std::make_shared<Impl>();
        impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(store.impl().store, rank, world, options);
        impl->timeout = store.timeout();
        impl->rank = rank;
        impl->world = world;
        return RankGroup(std::move(impl));
    } catch (const std::exception& e) {
        return groupError("joining the group of " + std::to_string(world) + " ranks", rank, store.timeout(), e);
    }
}

int RankGroup::rank() const { return impl_->rank; }
int RankGroup::world() const { return impl_->world; }
std::chrono::milliseconds RankGroup::timeout() const { return impl_->timeout; }

namespace detail {

void allreduceSum(RankGroup::Impl& group, at::Tensor& values) {
    std::vector<at::Tensor> one{values};
    try {
        group.group->allreduce(one)->wait();
    } catch (const std::exception& e) {
        throw std::runtime_error(groupError("the all-reduce", group.rank, group.timeout, e).message);
    }
}

void broadcastFrom(RankGroup::Impl& group, at::Tensor& values, int root) {
    std::vector<at::Tensor> one{values};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    try {
        group.group->broadcast(one, options)->wait();
    } catch (const std::exception& e) {
        throw std::runtime_error(
            groupError("the broadcast from rank " + std::to_string(root), group.rank, group.timeout, e).message);
    }
}

void sendTo(RankGroup::Impl& group, at::Tensor& values, int to, int tag) {
    std::vector<at::Tensor> one{values};
    try {
        group.group->send(one, to, tag)->wait();
    } catch (const std::exception& e) {
        throw std::runtime_error(
            groupError("sending to rank " + std::to_string(to), group.rank, group.timeout, e).message);
    }
}

void receiveFrom(RankGroup::Impl& group, at::Tensor& values, int from, int tag) {
    std::vector<at::Tensor> one{values};
    try {
        group.group->recv(one, from, tag)->wait();
    } catch (const std::exception& e) {
        throw std::runtime_error(
            groupError("receiving from rank " + std::to_string(from), group.rank, group.timeout, e).message);
    }
}

}  // namespace detail

namespace {

// Root's length first, then root's values, as one dtype.
template <typename T>
Status broadcastVector(RankGroup::Impl& group, std::vector<T>& values, int root, at::ScalarType dtype) {
    try {
        at::Tensor length = at::tensor({static_cast<std::int64_t>(values.size())}, at::kLong);
        detail::broadcastFrom(group, length, root);
        values.resize(static_cast<std::size_t>(length.item<std::int64_t>()));
        if (values.empty()) return std::nullopt;
        at::Tensor t = at::from_blob(values.data(), {static_cast<std::int64_t>(values.size())}, dtype);
        detail::broadcastFrom(group, t, root);
        return std::nullopt;
    } catch (const std::exception& e) {
        return Error{e.what()};
    }
}

// Length first (tag), then the values (tag + 1).
template <typename T>
Status sendVector(RankGroup::Impl& group, const std::vector<T>& values, int to, int tag, at::ScalarType dtype) {
    try {
        at::Tensor length = at::tensor({static_cast<std::int64_t>(values.size())}, at::kLong);
        detail::sendTo(group, length, to, tag);
        if (values.empty()) return std::nullopt;
        at::Tensor t = at::from_blob(const_cast<T*>(values.data()), {static_cast<std::int64_t>(values.size())}, dtype);
        detail::sendTo(group, t, to, tag + 1);
        return std::nullopt;
    } catch (const std::exception& e) {
        return Error{e.what()};
    }
}

template <typename T>
Status receiveVector(RankGroup::Impl& group, std::vector<T>& values, int from, int tag, at::ScalarType dtype) {
    try {
        at::Tensor length = at::zeros({1}, at::kLong);
        detail::receiveFrom(group, length, from, tag);
        values.resize(static_cast<std::size_t>(length.item<std::int64_t>()));
        if (values.empty()) return std::nullopt;
        at::Tensor t = at::from_blob(values.data(), {static_cast<std::int64_t>(values.size())}, dtype);
        detail::receiveFrom(group, t, from, tag + 1);
        return std::nullopt;
    } catch (const std::exception& e) {
        return Error{e.what()};
    }
}

}  // namespace

Status RankGroup::send(const std::vector<float>& values, int to, int tag) {
    return sendVector(*impl_, values, to, tag, at::kFloat);
}
Status RankGroup::send(const std::vector<std::int64_t>& values, int to, int tag) {
    return sendVector(*impl_, values, to, tag, at::kLong);
}
Status RankGroup::receive(std::vector<float>& values, int from, int tag) {
    return receiveVector(*impl_, values, from, tag, at::kFloat);
}
Status RankGroup::receive(std::vector<std::int64_t>& values, int from, int tag) {
    return receiveVector(*impl_, values, from, tag, at::kLong);
}

Status RankGroup::broadcast(std::vector<float>& values, int root) {
    return broadcastVector(*impl_, values, root, at::kFloat);
}

Status RankGroup::broadcast(std::vector<std::int64_t>& values, int root) {
    return broadcastVector(*impl_, values, root, at::kLong);
}

Status RankGroup::sum(std::vector<double>& values) {
    try {
        at::Tensor t = at::from_blob(values.data(), {static_cast<std::int64_t>(values.size())}, at::kDouble);
        detail::allreduceSum(*impl_, t);
        return std::nullopt;
    } catch (const std::exception& e) {
        return Error{e.what()};
    }
}

}  // namespace dpmix::distributed
