#include "app/workbench/parameters/public_data_advice.h"

#include "engine/experiments/regime_advice.h"

#include <QObject>

namespace dpmix::workbench {

PublicDataAdviceText publicDataAdvice(const Result<experiments::RegimeMap>& map, const AdviceStudy& study,
                                      double epsilon) {
    PublicDataAdviceText out;
    if (study.publicSources == 0 || study.n < 1) return out;  // nothing to pretrain on, or no sensitive data yet
    if (study.text) {
        out.reason = QObject::tr("No advice for a text study: the regime map was measured on image studies.");
        return out;
    }
    if (!map) {
        out.reason = QObject::tr("No advice: the regime map cannot be read (%1).")
                         .arg(QString::fromStdString(map.error().message));
        return out;
    }
    const auto advice = experiments::regimeAdvice(*map, experiments::poolKindOf(study.publicSources), study.n, epsilon);
    if (!advice) {
        if (map->cells.empty()) out.reason = QObject::tr("No advice: the regime map holds no measured regime.");
        return out;  // else ε is not valid yet, and its field says why
    }
    out.headline = QString::fromStdString(advice->headline);
    out.detail = QString::fromStdString(advice->detail);
    return out;
}

}  // namespace dpmix::workbench
