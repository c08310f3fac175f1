#pragma once
// DP-SGD fine-tuning across data-parallel ranks instead of in this process (docs/CLUSTER.md,
// "Ranks"). The pipeline knows nothing of processes: the program that launches ranks
// (`dpmix run … --ranks N`, engine/distributed) installs a runner for the duration of its run, and
// the downstream stage then (1) plans the DP-SGD entry with the world size, so the reservation
// and the ledger name it before the mechanism runs, (2) hands the fine-tuning to the runner, and
// (3) refuses the fine-tuning mechanisms that have no data-parallel form.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/images.h"
#include "engine/train/model.h"

#include <cstdint>
#include <functional>
#include <span>

namespace dpmix::pipeline {

struct DpSgdOnRanks {
    int ranks = 1;  // the world size, rank 0 included
    // As train::finetuneDpSgd (userOfImage empty) or finetuneUserLevelDpSgd, on `ranks` ranks.
    std::function<Result<train::FinetuneResult>(train::Model&, const train::ImageView&, std::span<const int>,
                                                std::span<const std::int64_t>, const train::DpSgdParams&,
                                                privacy::Ledger&, const ProgressCallback&, const CancellationToken&)>
        finetune;
};

/// Installs `runner` for every downstream stage of this process while the object lives (one at a
/// time: a second while one is installed throws std::logic_error).
class ScopedDpSgdOnRanks {
public:
    explicit ScopedDpSgdOnRanks(DpSgdOnRanks runner);
    ~ScopedDpSgdOnRanks();
    ScopedDpSgdOnRanks(const ScopedDpSgdOnRanks&) = delete;
    ScopedDpSgdOnRanks& operator=(const ScopedDpSgdOnRanks&) = delete;
};

/// The installed runner, or null: DP-SGD runs in this process.
const DpSgdOnRanks* installedDpSgdOnRanks();

}  // namespace dpmix::pipeline
