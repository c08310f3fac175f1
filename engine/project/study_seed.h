#pragma once
// The seed a study's data is split with (its train/validation/test split, the folds the
// experiments draw): the spec's first seed, or 0 when it lists none. Every stage that loads a
// study uses this one rule, so they all see the same splits.
#include "engine/project/project_spec.h"

#include <cstdint>

namespace dpmix::project {

inline std::uint64_t studySeedOf(const ProjectSpec& spec) {
    return spec.seeds.empty() ? 0 : static_cast<std::uint64_t>(spec.seeds.front());
}

}  // namespace dpmix::project
