#pragma once
// `dpmix export-release`: a new project file that holds only what a DP guarantee covers — the
// chosen DP runs' released outputs (λ_DP and its trajectory, DP fine-tuned models, σ and ε
// spent), their ledgers, the spec without local data paths and the public data's hashes, and
// a manifest with the composed guarantee. Never the sensitive data's content hash, a label set
// read from it, λ*, Random Search's choice, audits, logs, statistics no ledger covers, or the
// seed of a mechanism's randomness; test metrics only when asked, and then stated on every view.
// docs/PRIVACY.md, "Trust boundary".
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "engine/project/release_manifest.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::project {

struct ReleaseOptions {
    std::vector<long long> runIds;                          // the runs to release (ids in the project)
    bool includeTestMetrics = false;                        // metrics of the sensitive test split (not covered)
    std::vector<ReleaseConfirmation> confirmUnestablished;  // release these despite an unproven guarantee
    bool replace = false;                                   // replace an existing target file
    const OwnerKeyPair* signWith = nullptr;                 // the data owner's key: the release carries its signature
};

struct ReleaseSummary {
    std::filesystem::path file;
    ReleaseManifest manifest;
    std::map<std::string, long long> rows;  // table → rows written
    long long modelFiles = 0;
};

/// Why `run` cannot be released, or nothing when it can. `ledger`: its last ledger, if any;
/// `confirmed`: the user confirmed releasing a mechanism whose guarantee is not established.
std::optional<std::string> whyNotReleasable(const RunRecord& run, const std::optional<privacy::Ledger>& ledger,
                                            bool confirmed);

/// Validates everything first (an error changes nothing on disk), then builds the release under
/// a temporary name, checks its hash chain and its verdict, and publishes it at `target`
/// (never replacing a file unless options.replace). Model files go to <target stem>.models/.
Result<ReleaseSummary> exportRelease(const ProjectFile& project, const std::filesystem::path& target,
                                     const ReleaseOptions& options);

}  // namespace dpmix::project
