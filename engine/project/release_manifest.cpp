#include "engine/project/release_manifest.h"

#include "engine/project/project_file.h"
#include "engine/project/project_file_support.h"
#include "engine/project/sqlite_db.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace dpmix::project {

using nlohmann::ordered_json;

std::string releaseManifestToJson(const ReleaseManifest& m) {
    ordered_json confirmations = ordered_json::array();
    for (const auto& c : m.unestablished) confirmations.push_back({{"run", c.runId}, {"reason", c.reason}});
    // ε is finite for every release (a non-private run is never exported); JSON has no ∞.
    return ordered_json{{"format", kReleaseFormat},
                        {"exported_at", m.exportedAt},
                        {"exported_by", m.exportedBy},
                        {"from_project", m.fromProject},
                        {"runs", m.runs},
                        {"includes_test_metrics", m.includesTestMetrics},
                        {"unestablished_confirmed", confirmations},
                        {"epsilon", m.epsilon},
                        {"delta", m.delta},
                        {"releases", m.releases},
                        {"unit", m.unit}}
        .dump(2);
}

Result<ReleaseManifest> releaseManifestFromJson(const std::string& text) {
    const auto j = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return Error{"release manifest: not a JSON object"};
    if (!j.contains("format") || j.at("format") != kReleaseFormat)
        return Error{std::string("release manifest: format is not ") + kReleaseFormat};
    try {
        ReleaseManifest m;
        m.exportedAt = j.at("exported_at").get<std::string>();
        m.exportedBy = j.at("exported_by").get<std::string>();
        m.fromProject = j.at("from_project").get<std::string>();
        m.runs = j.at("runs").get<std::vector<long long>>();
        m.includesTestMetrics = j.at("includes_test_metrics").get<bool>();
        for (const auto& c : j.at("unestablished_confirmed"))
            m.unestablished.push_back({c.at("run").get<long long>(), c.at("reason").get<std::string>()});
        m.epsilon = j.at("epsilon").get<double>();
        m.delta = j.at("delta").get<double>();
        m.releases = j.at("releases").get<long long>();
        m.unit = j.at("unit").get<std::string>();
        return m;
    } catch (const std::exception& e) {
        return Error{std::string("release manifest: ") + e.what()};
    }
}

namespace detail {

bool holdsReleaseManifest(Database& db) {
    Statement exists(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'release'");
    if (!exists.step() || exists.integer(0) == 0) return false;  // an older file read without migrating
    Statement rows(db.handle(), "SELECT count(*) FROM release");
    return rows.step() && rows.integer(0) > 0;
}

}  // namespace detail

void ProjectFile::loadReleaseManifest() {
    releaseManifestJson_.clear();
    Statement exists(db_->handle(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'release'");
    if (!exists.step() || exists.integer(0) == 0) return;  // an older file read without migrating
    Statement s(db_->handle(), "SELECT manifest_json FROM release ORDER BY id LIMIT 1");
    if (s.step()) releaseManifestJson_ = s.text(0);
}

}  // namespace dpmix::project
