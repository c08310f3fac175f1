#include "engine/data/image_union.h"

#include <set>

namespace dpmix::data {

ImageDataset withAllImagesPositive(ImageDataset images, const std::string& componentName) {
    images.labelNames = {componentName};
    images.labels.assign(images.size(), 1.0f);
    images.labelMask.clear();
    return images;
}

Result<ImageUnion> joinImageSets(std::vector<NamedImageSet> sets) {
    if (sets.empty()) return Error{"no public image source to join"};
    ImageUnion out;
    if (sets.size() == 1) {  // one source: its set as it is, so one-source studies stay what they were
        auto& only = sets.front();
        if (only.images.size() == 0) return Error{"public source '" + only.name + "' has no images"};
        out.sourceNames = {only.name};
        out.componentSource.assign(only.images.numLabels(), 0);
        out.imageSource.assign(only.images.size(), 0);
        out.sourceImages = {only.images.size()};
        out.images = std::move(only.images);
        return out;
    }
    const ImageDataset& first = sets.front().images;
    std::size_t totalImages = 0, totalComponents = 0;
    std::set<std::string> names;
    for (const auto& s : sets) {
        const ImageDataset& d = s.images;
        if (d.size() == 0) return Error{"public source '" + s.name + "' has no images"};
        if (d.numLabels() == 0) return Error{"public source '" + s.name + "' gives no component (no label column)"};
        if (d.channels != first.channels || d.height != first.height || d.width != first.width)
            return Error{"public source '" + s.name + "' has images of another shape than '" + sets.front().name +
                         "': fit every source to the study's shape first"};
        for (const auto& label : d.labelNames)
            if (!names.insert(s.name + " / " + label).second)
                return Error{"two components are named \"" + s.name + " / " + label +
                             "\": component names must be unique"};
        totalImages += d.size();
        totalComponents += d.numLabels();
    }
    out.images.channels = first.channels;
    out.images.height = first.height;
    out.images.width = first.width;
    out.images.pixels.reserve(totalImages * first.imageSize());
    out.images.labels.assign(totalImages * totalComponents, 0.0f);
    out.defined.assign(totalImages * totalComponents, 0);
    std::size_t row = 0, column = 0;
    for (std::size_t s = 0; s < sets.size(); ++s) {
        const ImageDataset& d = sets[s].images;
        const std::size_t k = d.numLabels();
        out.sourceNames.push_back(sets[s].name);
        out.sourceImages.push_back(d.size());
        for (const auto& label : d.labelNames) {
            out.images.labelNames.push_back(sets[s].name + " / " + label);
            out.componentSource.push_back(s);
        }
        out.images.pixels.insert(out.images.pixels.end(), d.pixels.begin(), d.pixels.end());
        for (std::size_t j = 0; j < d.size(); ++j, ++row) {
            out.imageSource.push_back(s);
            for (std::size_t c = 0; c < k; ++c) {
                const bool known = d.labelMask.empty() || d.labelMask[j * k + c] != 0;
                out.images.labels[row * totalComponents + column + c] = known ? d.labels[j * k + c] : 0.0f;
                out.defined[row * totalComponents + column + c] = 1;
            }
        }
        column += k;
    }
    return out;
}

}  // namespace dpmix::data
