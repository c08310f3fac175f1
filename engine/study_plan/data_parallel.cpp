#include "engine/study_plan/data_parallel.h"

#include "engine/methods/finetune_mechanism.h"

namespace dpmix::study_plan {

std::optional<std::string> dataParallelRefusal(int ranks, bool textStudy, const project::ProjectSpec& spec,
                                               const StudyRunOptions& options) {
    if (ranks < 1 || ranks > kMostRanks)
        return std::to_string(ranks) + " ranks is out of range: expected 1 to " + std::to_string(kMostRanks);
    if (ranks == 1) return std::nullopt;
    if (textStudy) return "a text study's fine-tuning runs in one process (dpmix-text)";
    const auto mechanism = withStageOptions(spec, options).finetune.mechanism;
    if (mechanism != methods::FinetuneMechanism::DpSgd)
        return "only DP-SGD fine-tuning runs on ranks; this study fine-tunes with " +
               std::string(methods::traitsOf(mechanism).label) +
               ", which has no data-parallel form here (its noise is not added once to a sum of clipped gradients)";
    return std::nullopt;
}

}  // namespace dpmix::study_plan
