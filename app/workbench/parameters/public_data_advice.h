#pragma once
// The panel's "Will public data help?", in words: the regime map's advice
// (engine/experiments/regime_advice.h) for the open study's pool kind (one public source, or
// several), its size n and the panel's ε — the nearest measured regime, labelled an empirical
// estimate on reference data — or why there is none. A pure function of its inputs, so the
// window recomputes it whenever ε changes or another study opens.
#include "engine/core/result.h"
#include "engine/experiments/regime_map.h"

#include <QString>

#include <cstddef>

namespace dpmix::workbench {

/// What the advice needs to know of the open study (a project or a draft).
struct AdviceStudy {
    std::size_t publicSources = 0;  // 0: no public data (a PSG study): nothing to advise on
    bool text = false;              // a text study: the map was measured on images
    long long n = 0;                // the sensitive source's examples (users at user level); 0: not registered
};

struct PublicDataAdviceText {
    QString headline;  // the advice; empty when there is none
    QString detail;    // the numbers, the regime they come from and the caveat
    QString reason;    // without advice: why, in grey (empty: the box is hidden)
};

PublicDataAdviceText publicDataAdvice(const Result<experiments::RegimeMap>& map, const AdviceStudy& study,
                                      double epsilon);

}  // namespace dpmix::workbench
