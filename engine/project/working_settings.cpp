// ProjectFile: the working settings a user saved for the next run (schema v5; the rest of the
// class is in project_file.cpp and project_results.cpp).
#include "engine/project/project_file.h"

#include "engine/project/project_file_support.h"
#include "engine/project/sqlite_db.h"

#include <nlohmann/json.hpp>

namespace dpmix::project {
using namespace detail;

namespace {
bool hasWorkingSettingsTable(Database& db) {
    Statement s(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'working_settings'");
    return s.step() && s.integer(0) > 0;
}
}  // namespace

Status ProjectFile::saveWorkingSettings(const std::string& settingsJson) {
    if (auto e = refuseWrite("save the working settings")) return e;
    const auto parsed = nlohmann::json::parse(settingsJson, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object())
        return Error{path_.string() + ": the working settings were not saved: expected one JSON object, got \"" +
                     settingsJson.substr(0, 40) + (settingsJson.size() > 40 ? "…" : "") + "\""};
    try {
        Transaction t(*db_);
        Statement s(
            db_->handle(),
            "INSERT INTO working_settings(id, settings_json, saved_at) VALUES(1, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET settings_json = excluded.settings_json, saved_at = excluded.saved_at");
        s.bind(1, parsed.dump()).bind(2, utcTimestamp()).run();
        t.commit();
        return std::nullopt;
    } catch (const std::exception& e) {
        return storageError(path_, "save the working settings", e);
    }
}

Result<std::optional<std::string>> ProjectFile::workingSettings() const {
    try {
        // A v4 file opened read-only is not migrated: it has no such table, so nothing was saved.
        if (!hasWorkingSettingsTable(*db_)) return std::optional<std::string>{};
        Statement s(db_->handle(), "SELECT settings_json FROM working_settings WHERE id = 1");
        if (!s.step()) return std::optional<std::string>{};
        return std::optional<std::string>{s.text(0)};
    } catch (const std::exception& e) {
        return storageError(path_, "read the working settings", e);
    }
}

}  // namespace dpmix::project
