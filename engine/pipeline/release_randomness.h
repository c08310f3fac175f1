#pragma once
// The randomness of each DP release a study makes. Secret by default: every mechanism
// invocation draws fresh OS entropy that is stored nowhere. Reproducible studies (spec
// privacy.reproducible, dpmix run --reproducible, the workbench's checkbox) seed each invocation
// from the run seed *and* the invocation's identity — stage, method, task, ε — so no two stored
// releases share a batch or a noise draw even then. docs/PRIVACY.md, "Secret randomness".
#include "engine/privacy/randomness_source.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace dpmix::pipeline {

/// "stage/method/task=T/eps=E/seed=S": the identity that keys a reproducible invocation.
inline std::string releaseIdentity(const std::string& stage, const std::string& method, const std::string& task,
                                   double epsilon, std::uint64_t seed) {
    char eps[32];
    std::snprintf(eps, sizeof eps, "%.17g", epsilon);  // round-trip exact: distinct ε, distinct streams
    return stage + "/" + method + "/task=" + task + "/eps=" + eps + "/seed=" + std::to_string(seed);
}

inline privacy::RandomnessSource releaseRandomness(bool reproducible, std::uint64_t seed, const std::string& identity) {
    return reproducible ? privacy::RandomnessSource::seeded(seed, identity) : privacy::RandomnessSource::secret();
}

}  // namespace dpmix::pipeline
