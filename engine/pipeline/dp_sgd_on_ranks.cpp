#include "engine/pipeline/dp_sgd_on_ranks.h"

#include <memory>
#include <stdexcept>

namespace dpmix::pipeline {
namespace {

// One process runs one study at a time (the CLI's `run`); the workbench never installs one.
std::unique_ptr<DpSgdOnRanks>& installed() {
    static std::unique_ptr<DpSgdOnRanks> runner;
    return runner;
}

}  // namespace

ScopedDpSgdOnRanks::ScopedDpSgdOnRanks(DpSgdOnRanks runner) {
    if (installed()) throw std::logic_error("a DP-SGD runner across ranks is already installed");
    installed() = std::make_unique<DpSgdOnRanks>(std::move(runner));
}

ScopedDpSgdOnRanks::~ScopedDpSgdOnRanks() { installed().reset(); }

const DpSgdOnRanks* installedDpSgdOnRanks() { return installed().get(); }

}  // namespace dpmix::pipeline
