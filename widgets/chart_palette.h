#pragma once
// One colour per series, shared by all charts so a source keeps its colour across plots
// (Okabe–Ito palette: distinguishable with the common colour-vision deficiencies).
#include <QColor>

namespace dpmix::widgets {
QColor seriesColor(int index);
}  // namespace dpmix::widgets
