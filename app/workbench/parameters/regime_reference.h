#pragma once
// The reference regime map that ships with the workbench (resources/regime_map.json, a Qt
// resource): where private data selection paid on reference data, per pool kind, n and ε
// (engine/experiments/regime_map.h). The panel's "Will public data help?" and Help ▸ Where public
// data pays read it; a map a user made with `dpmix experiment regime-map --write-map` is read
// with readRegimeMapFile.
#include "engine/core/result.h"
#include "engine/experiments/regime_map.h"

#include <QString>

namespace dpmix::workbench {

/// The bundled map, read and parsed once (on first use); the parse error names the resource.
const Result<experiments::RegimeMap>& referenceRegimeMap();

/// A stored map (dpmix-regime-map-v1) at `path`, a file or a resource (":/…"); errors name it.
Result<experiments::RegimeMap> readRegimeMapFile(const QString& path);

/// The resource path of the bundled map.
QString referenceRegimeMapPath();

}  // namespace dpmix::workbench
