#pragma once
// A small stored regime map (dpmix-regime-map-v1), written as JSON by the tests that read one, so
// they never depend on the reference map bundled with the workbench. Three regimes, three seeds
// each (per seed: DP-MixMin, Random Init, Uniform):
//   one public data set, n = 1,000, ε = 1: DP-MixMin ahead of both (it pays);
//   several kinds, n = 8,000, ε = 4: Random Init ahead (public data does not help);
//   several kinds, n = 500, ε = 0.5: all three even (expect little difference).
#include "engine/experiments/regime_map.h"

#include <QString>

#include <string>

namespace dpmix::workbench::testing {

inline std::string regimeCellJson(const char* kind, long long n, double epsilon, const double (&dp)[3],
                                  const double (&randomInit)[3], const double (&uniform)[3]) {
    auto perSeed = [](const double(&v)[3]) {
        return "{\"per_seed\": {\"0\": " + std::to_string(v[0]) + ", \"1\": " + std::to_string(v[1]) +
               ", \"2\": " + std::to_string(v[2]) + "}}";
    };
    return std::string("{\"pool\": \"test-") + kind + "\", \"pool_kind\": \"" + kind +
           "\", \"n\": " + std::to_string(n) + ", \"epsilon\": " + std::to_string(epsilon) +
           ", \"tasks\": 2, \"methods\": {\"dp-mixmin\": " + perSeed(dp) + ", \"random-init\": " + perSeed(randomInit) +
           ", \"uniform\": " + perSeed(uniform) + "}}";
}

inline std::string smallRegimeMapJson() {
    return "{\"schema\": \"dpmix-regime-map-v1\", \"reference\": \"a test map\", \"metric\": \"test-auc\", "
           "\"cells\": [" +
           regimeCellJson("one-source", 1000, 1.0, {0.90, 0.92, 0.91}, {0.80, 0.81, 0.83}, {0.85, 0.84, 0.86}) + ", " +
           regimeCellJson("heterogeneous", 8000, 4.0, {0.80, 0.81, 0.79}, {0.90, 0.91, 0.92}, {0.80, 0.80, 0.80}) +
           ", " +
           regimeCellJson("heterogeneous", 500, 0.5, {0.90, 0.90, 0.90}, {0.90, 0.90, 0.90}, {0.90, 0.90, 0.90}) + "]}";
}

inline experiments::RegimeMap smallRegimeMap() {
    return experiments::regimeMapFromJson(smallRegimeMapJson(), "small-map.json").value();
}

}  // namespace dpmix::workbench::testing
