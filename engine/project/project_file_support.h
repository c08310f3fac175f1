#pragma once
// Internal to the project module: small helpers shared by project_file.cpp (opening, runs,
// ledgers) and project_results.cpp (λ, metrics, curves, audits, logs, models).
#include "engine/core/result.h"
#include "engine/project/sqlite_db.h"

#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::project::detail {

std::string jsonStrings(const std::vector<std::string>& values);
std::vector<std::string> stringsFromJson(const std::string& text);
std::optional<double> optionalReal(const Statement& s, int column);
std::string optionalText(const Statement& s, int column);
/// A storage failure as the user should read it: busy, disk full, read-only, or the SQLite text.
Error storageError(const std::filesystem::path& file, const std::string& action, const std::exception& e);
/// Writes, fsyncs and closes `file`; on failure removes the partial file and throws.
void writeFileDurably(const std::filesystem::path& file, const std::string& bytes);
/// Round-trip text of a double ("nan", "inf" spelled out).
std::string showNumber(double v);
/// True when the file has a `release` table with a manifest row (an exported DP release).
bool holdsReleaseManifest(Database& db);
/// Throws SqliteError unless run `runId` exists.
void requireRun(Database& db, long long runId);

}  // namespace dpmix::project::detail
