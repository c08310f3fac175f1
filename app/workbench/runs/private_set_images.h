#pragma once
// A private set S as plain values for the GUI (engine/psg's PrivateSet without the engine): what
// the PSG job sends while it generates S and what the Private set view draws.
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <vector>

namespace dpmix::workbench {

struct PrivateSetImages {
    std::vector<float> pixels;  // classes × imagesPerClass × C × H × W, class-major, pixel space [0, 1]
    int classes = 0, imagesPerClass = 0;
    int channels = 1, height = 0, width = 0;
    int iteration = 0;       // how many iterations S has been trained (the live view's caption)
    int iterations = 0;      // of how many (0: unknown)
    QStringList classNames;  // empty: "class 0", "class 1", ...

    bool empty() const { return pixels.empty(); }
    /// True when the sizes agree (count × C × H × W values, positive sizes).
    bool consistent() const {
        return classes > 0 && imagesPerClass > 0 && channels > 0 && height > 0 && width > 0 &&
               pixels.size() == static_cast<std::size_t>(classes) * imagesPerClass * channels * height * width;
    }
};

}  // namespace dpmix::workbench

Q_DECLARE_METATYPE(dpmix::workbench::PrivateSetImages)
