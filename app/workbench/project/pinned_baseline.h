#pragma once
// "Pin as baseline": the run every comparison is measured against, remembered per project in
// the user's QSettings (keyed by the project's absolute path), so pinning works on a project
// opened read-only and never writes to the .dpmix file (whose rows are hash-chained).
#include <QString>

#include <optional>

namespace dpmix::workbench {

std::optional<long long> pinnedBaselineRunId(const QString& projectPath);
void setPinnedBaselineRunId(const QString& projectPath, long long runId);
void clearPinnedBaseline(const QString& projectPath);

}  // namespace dpmix::workbench
