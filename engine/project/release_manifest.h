#pragma once
// The manifest of a DP release: what `dpmix export-release` put into the file, from which
// project, and the composed guarantee of what it holds (docs/PRIVACY.md, "Trust boundary").
// Stored as the one row of the `release` table; its presence makes a file a release, which
// opens read-only. The hash chain covers it like every other row.
#include "engine/core/result.h"

#include <string>
#include <vector>

namespace dpmix::project {

struct ReleaseConfirmation {
    long long runId = 0;
    std::string reason;  // why the user released a run whose guarantee is not established
};

struct ReleaseManifest {
    std::string exportedAt;            // UTC ISO 8601
    std::string exportedBy;            // dpmix version
    std::string fromProject;           // the project's file name (no folder)
    std::vector<long long> runs;       // the exported runs (their ids in the project)
    bool includesTestMetrics = false;  // metrics of the sensitive test split, not covered
    std::vector<ReleaseConfirmation> unestablished;
    double epsilon = 0.0;  // the composed guarantee of the exported runs
    double delta = 0.0;
    long long releases = 0;  // DP mechanisms composed into (epsilon, delta)
    std::string unit;        // "examples" or "users"
};

inline constexpr const char* kReleaseFormat = "dpmix-release/1";

std::string releaseManifestToJson(const ReleaseManifest& manifest);
/// An error names the field that is missing or of the wrong type.
Result<ReleaseManifest> releaseManifestFromJson(const std::string& text);

}  // namespace dpmix::project
