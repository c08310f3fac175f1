#pragma once
// Where a DP mechanism's randomness comes from: secret (the default, a release) or seeded
// (reproducible, no release). Plain data, so the ledger and every parameter struct can name it
// without pulling in the generator (engine/privacy/mechanism_random.h). docs/PRIVACY.md,
// "Secret randomness".
#include <cstdint>
#include <string>
#include <string_view>

namespace dpmix::privacy {

enum class RandomnessMode {
    Secret,  // OS entropy, never stored: the default for every release
    Seeded,  // derived from a seed the project file stores: reproducible, not a release
};

std::string toString(RandomnessMode mode);  // "secret", "seeded"
bool parseRandomnessMode(const std::string& text, RandomnessMode& out);

/// Where one mechanism invocation's randomness comes from.
struct RandomnessSource {
    RandomnessMode mode = RandomnessMode::Secret;
    std::uint64_t seed = 0;  // seeded mode only
    std::string invocation;  // seeded mode only: the release's identity, e.g. "mixture/task=t1/eps=1"

    static RandomnessSource secret() { return {}; }
    /// Seeded randomness. Two invocations with the same seed but different `invocation`
    /// strings get unrelated streams, so no two stored releases share a noise draw.
    static RandomnessSource seeded(std::uint64_t seed, std::string invocation = {});

    bool isSecret() const { return mode == RandomnessMode::Secret; }
    /// The source of a part of this invocation (one run of an audit, one sweep point): secret
    /// stays secret (fresh keys anyway), seeded appends "/part" to the identity.
    RandomnessSource child(std::string_view part) const;
};

}  // namespace dpmix::privacy
