#pragma once
// What the regime map says to a user, in words: before a run, the expected gain of pretraining on
// public data for the study's pool kind, n and ε, read from the nearest measured cell of a stored
// map and labelled as an empirical estimate on reference data (regimeAdvice); after a run,
// whether DP-MixMin beat each baseline beyond seed noise on the study's own results
// (baselineVerdict). Plain text, torch- and Qt-free: the workbench's panel and Summary and the
// CLI say the same sentences.
#include "engine/experiments/regime_map.h"

#include <optional>
#include <string>

namespace dpmix::experiments {

struct RegimeAdvice {
    RegimeCell cell;           // the nearest measured cell
    bool samePoolKind = true;  // false: the map has no cell of the study's pool kind
    std::string headline;      // one sentence: what to expect
    std::string detail;        // the numbers, the cell it comes from and the caveat
};

/// The nearest cell (same pool kind first; then by |ln n − ln n'| + |ln ε − ln ε'|), or none when
/// the map is empty or n, ε are not positive.
std::optional<RegimeAdvice> regimeAdvice(const RegimeMap& map, PoolKind kind, long long n, double epsilon);

/// "DP-MixMin beat Random Init by +0.031 AUC (95% interval +0.012 to +0.050, 3 seeds) and tied with
/// Uniform (…)": one clause per baseline the cell holds; with fewer than two seeds it says no
/// claim can be made.
std::string baselineVerdict(const RegimeCell& cell);

/// "+0.031 [+0.012, +0.050]", the way every view prints a paired difference.
std::string differenceText(const PairedDifference& difference);

}  // namespace dpmix::experiments
