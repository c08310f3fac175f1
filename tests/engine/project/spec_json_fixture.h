#pragma once
// The spec tests' shared fixture: a valid toy spec and a spec folder and data folder holding the
// files it names (tst_spec_json, tst_spec_sources).
#include "engine/project/spec_json.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <filesystem>
#include <fstream>

namespace dpmix::project::spec_testing {

inline nlohmann::json validSpec() {
    return nlohmann::json::parse(R"({
      "name": "toy",
      "description": "a toy study",
      "public_sources": [
        {"name": "pub", "loader": "idx", "path": "pub-images.idx",
         "options": {"labels": "pub-labels.idx", "classes": "a,b,c"}}
      ],
      "sensitive": {"name": "priv", "loader": "idx", "path": "shared/priv-images.idx",
                    "options": {"classes": "a,b,c", "labels": "priv-labels.idx"}, "user_level": false},
      "tasks": {"public": [{"name": "ab", "classes": ["a", "b"]}, {"name": "c", "classes": ["c"]}],
                "sensitive": [{"name": "bc", "classes": ["b", "c"]}]},
      "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.1, "composition": "parallel"},
      "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 100},
                 "finetune": {"mechanism": "dp-sgd", "clip": 2.0, "batch": 64, "lr": 0.001, "steps": 50},
                 "pretrain": {"batch": 128, "lr": 0.1, "steps": 200}},
      "seeds": [0, 1, 2]
    })");
}

/// A temporary spec folder (projects/) and data folder (data/) with the toy spec's files, and a
/// parser that resolves paths against them.
class SpecJsonFixture {
protected:
    test_support::TempDir dir_;
    std::filesystem::path specDir_, dataDir_;

    SpecLocation where() const { return {specDir_, dataDir_, true}; }
    Result<ProjectSpec> parse(const nlohmann::json& j) const { return parseProjectSpec(j.dump(), where(), "toy.json"); }

    static void touch(const std::filesystem::path& p) {
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << "x";
    }

    /// Call from initTestCase; false when the temporary folder could not be made.
    bool makeDataFiles() {
        if (!dir_.isValid()) return false;
        specDir_ = std::filesystem::path(dir_.path()) / "projects";
        dataDir_ = std::filesystem::path(dir_.path()) / "data";
        touch(specDir_ / "pub-images.idx");  // next to the spec
        touch(specDir_ / "pub-labels.idx");
        touch(dataDir_ / "shared" / "priv-images.idx");  // only in the data folder
        touch(dataDir_ / "shared" / "priv-labels.idx");  // next to its images
        return true;
    }
};

}  // namespace dpmix::project::spec_testing
