// "idx" loader: MNIST / Fashion-MNIST image + label IDX files.
#include "engine/data/idx_file.h"
#include "engine/data/image_loaders.h"
#include "engine/data/loader_options.h"

#include <algorithm>

namespace dpmix::data {

Result<ImageDataset> loadIdxSource(const SourceSpec& spec) {
    if (auto unknown = checkKnownOptions(spec, {"labels", "classes", "tasks"})) return *unknown;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    auto images = readIdxFile(spec.path);
    if (!images) return Error{sourceContext(spec) + images.error().message};
    const auto& dims = images->dims;
    if (dims.size() != 3 && dims.size() != 4)
        return Error{sourceContext(spec) + "IDX file '" + spec.path + "' has " + std::to_string(dims.size()) +
                     " dimensions, expected 3 (N×H×W) or 4 (N×H×W×C) for images"};
    const std::size_t total = dims[0];
    if (total == 0) return Error{sourceContext(spec) + "IDX file '" + spec.path + "' holds no images"};
    const std::size_t n = std::min(total, *limit);

    ImageDataset out;
    out.height = static_cast<int>(dims[1]);
    out.width = static_cast<int>(dims[2]);
    out.channels = dims.size() == 4 ? static_cast<int>(dims[3]) : 1;
    const std::size_t h = dims[1], w = dims[2], c = static_cast<std::size_t>(out.channels);
    out.pixels.resize(n * c * h * w);
    const unsigned char* src = images->data();
    // A lookup table keeps the conversion exact (x/255) and the loop branch-free.
    float table[256];
    for (int v = 0; v < 256; ++v) table[v] = static_cast<float>(v) / 255.0f;
    if (c == 1) {
        for (std::size_t i = 0; i < out.pixels.size(); ++i) out.pixels[i] = table[src[i]];
    } else {  // IDX stores H×W×C; the engine wants C×H×W
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t y = 0; y < h; ++y)
                for (std::size_t x = 0; x < w; ++x)
                    for (std::size_t ch = 0; ch < c; ++ch)
                        out.pixels[((i * c + ch) * h + y) * w + x] = table[src[((i * h + y) * w + x) * c + ch]];
    }

    const std::string labelsPath = optionOr(spec, "labels", "");
    if (labelsPath.empty()) {
        if (spec.options.count("classes") || spec.options.count("tasks"))
            return Error{sourceContext(spec) + "options 'classes'/'tasks' need option 'labels' (the label IDX file)"};
        return out;
    }
    const std::string resolved = resolveNextTo(spec, labelsPath);
    auto labels = readIdxFile(resolved);
    if (!labels) return Error{sourceContext(spec) + labels.error().message};
    if (labels->dims.size() != 1)
        return Error{sourceContext(spec) + "label IDX file '" + resolved + "' has " +
                     std::to_string(labels->dims.size()) + " dimensions, expected 1"};
    if (labels->dims[0] != total)
        return Error{sourceContext(spec) + "image/label count mismatch: '" + spec.path + "' holds " +
                     std::to_string(total) + " images but '" + resolved + "' holds " + std::to_string(labels->dims[0]) +
                     " labels"};
    std::vector<int> classIds(n);
    for (std::size_t i = 0; i < n; ++i) classIds[i] = labels->data()[i];
    if (auto failed = attachClassTargets(spec, classIds, out)) return *failed;
    return out;
}

}  // namespace dpmix::data
