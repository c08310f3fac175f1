#include "widgets/chart_palette.h"

#include <array>

namespace dpmix::widgets {

QColor seriesColor(int index) {
    static const std::array<QColor, 8> palette = {QColor(0, 114, 178),  QColor(230, 159, 0),  QColor(0, 158, 115),
                                                  QColor(213, 94, 0),   QColor(86, 180, 233), QColor(204, 121, 167),
                                                  QColor(240, 228, 66), QColor(0, 0, 0)};
    const auto n = static_cast<int>(palette.size());
    return palette[static_cast<std::size_t>(((index % n) + n) % n)];
}

}  // namespace dpmix::widgets
