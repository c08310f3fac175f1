#include "engine/distributed/slurm_ranks.h"

#include "engine/core/file_door.h"

#include <unistd.h>
#include <climits>
#include <string>
#include <thread>

namespace dpmix::distributed {
namespace {

constexpr const char* kEndKey = "dpmix/unit-ended";
constexpr auto kPoll = std::chrono::milliseconds(50);

std::string addressFile(const SlurmRankSettings& s) { return s.rendezvousDir + "/rank0-address"; }
std::string fineTuningKey(int k) { return "dpmix/finetune-" + std::to_string(k); }
std::string fineTuningPrefix(int k) { return "finetune-" + std::to_string(k) + "/"; }
std::string leftKey(int rank) { return "dpmix/left-" + std::to_string(rank); }

std::string thisHost() {
    char name[HOST_NAME_MAX + 1] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "127.0.0.1";
    return name;
}

// Written under another name and renamed: a task never reads half an address.
Status writeAddress(const SlurmRankSettings& s, const std::string& host, int port) {
    if (auto e = files::createDirectories(s.rendezvousDir)) return e;
    if (files::exists(addressFile(s)))
        return Error{"Slurm ranks: " + addressFile(s) + " exists already (another attempt's rendezvous)"};
    const std::string partial = addressFile(s) + ".partial";
    if (auto e = files::writeNewFile(partial, host + ":" + std::to_string(port) + "\n", 0644)) return e;
    return files::rename(partial, addressFile(s));
}

Result<RankAddress> waitForAddress(const SlurmRankSettings& s) {
    const auto deadline = std::chrono::steady_clock::now() + s.rendezvous;
    while (!files::exists(addressFile(s))) {
        if (std::chrono::steady_clock::now() >= deadline)
            return Error{"Slurm ranks: rank 0 wrote no address to " + addressFile(s) + " within " +
                         std::to_string(s.rendezvous.count() / 1000) + " s (did task 0 fail? see the unit's log)"};
        std::this_thread::sleep_for(kPoll);
    }
    auto text = files::readRegularFile(addressFile(s), "rank 0's address", 1024);
    if (!text) return text.error();
    const auto colon = text->rfind(':');
    RankAddress address;
    address.timeout = s.timeout;
    try {
        if (colon == std::string::npos) throw std::invalid_argument("no ':'");
        address.host = text->substr(0, colon);
        address.port = std::stoi(text->substr(colon + 1));
    } catch (const std::exception&) {
        return Error{"Slurm ranks: " + addressFile(s) + " holds no host:port: '" + *text + "'"};
    }
    return address;
}

// True: fine-tuning k begins; false: the unit has ended. Waits as long as rank 0's store lives
// (rank 0 may pretrain first); its end — a failure, a kill — is an error at once.
Result<bool> waitForNext(RankStore& store, int k) {
    for (;;) {
        auto ended = store.has(kEndKey);
        if (!ended) return Error{"rank 0's store went before the unit ended: " + ended.error().message};
        if (*ended) return false;
        auto next = store.has(fineTuningKey(k));
        if (!next) return Error{"rank 0's store went before the unit ended: " + next.error().message};
        if (*next) return true;
        std::this_thread::sleep_for(kPoll);
    }
}

}  // namespace

SlurmRankZero::SlurmRankZero(SlurmRankSettings settings, RankStore store)
    : settings_(std::move(settings)), store_(std::move(store)) {}

Result<std::shared_ptr<SlurmRankZero>> SlurmRankZero::host(const SlurmRankSettings& settings) {
    if (settings.ranks < 2) return Error{"Slurm ranks: expected at least 2 ranks"};
    RankAddress address;
    address.host = thisHost();
    address.timeout = settings.timeout;
    auto hosted = RankStore::host(address, settings.ranks);
    if (!hosted) return hosted.error();
    if (auto e = writeAddress(settings, address.host, hosted->port())) return *e;
    return std::shared_ptr<SlurmRankZero>(new SlurmRankZero(settings, *hosted));
}

SlurmRankZero::~SlurmRankZero() { end(false); }

Result<train::FinetuneResult> SlurmRankZero::finetune(train::Model& model, const train::ImageView& images,
                                                      std::span<const int> labels,
                                                      std::span<const std::int64_t> userOfImage,
                                                      const train::DpSgdParams& params, privacy::Ledger& ledger,
                                                      const ProgressCallback& progress,
                                                      const CancellationToken& cancel) {
    if (ended_) return Error{"Slurm ranks: the unit has ended"};
    const int k = next_++;
    if (auto e = store_.put(fineTuningKey(k), "1")) return *e;
    RankStore store = store_.prefixed(fineTuningPrefix(k));
    auto joined = RankGroup::join(store, 0, settings_.ranks);
    if (!joined) return joined.error();
    RankGroup group = *joined;
    return finetuneAsRankZero(store, group, model, images, labels, userOfImage, params, ledger, {}, progress, cancel);
}

void SlurmRankZero::end(bool waitForThem) {
    if (ended_) return;
    ended_ = true;
    if (store_.put(kEndKey, "1")) return;  // the store failed: the others see it gone
    if (!waitForThem) return;
    for (int r = 1; r < settings_.ranks; ++r) (void)store_.get(leftKey(r));  // each waits up to the timeout
}

Status runSlurmRank(const SlurmRankSettings& settings, int rank) {
    auto address = waitForAddress(settings);
    if (!address) return address.error();
    auto connected = RankStore::connect(*address);
    if (!connected) return connected.error();
    RankStore store = *connected;
    for (int k = 0;; ++k) {
        auto next = waitForNext(store, k);
        if (!next) return Error{"rank " + std::to_string(rank) + ": " + next.error().message};
        if (!*next) return store.put(leftKey(rank), "1");
        RankStore fineTuning = store.prefixed(fineTuningPrefix(k));
        if (auto e = runRankOn(fineTuning, rank, settings.ranks)) return e;
    }
}

}  // namespace dpmix::distributed
