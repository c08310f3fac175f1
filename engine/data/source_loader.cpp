// Dispatch from SourceSpec::loader to the loaders, and the summary a project file records.
#include "engine/data/source_loader.h"

#include "engine/core/joined_list.h"
#include "engine/data/image_loaders.h"
#include "engine/data/image_shift.h"
#include "engine/data/loader_options.h"
#include "engine/data/text_loaders.h"

#include <algorithm>
#include <set>

namespace dpmix::data {
namespace {

const std::vector<std::string> kImageLoaders = {"idx", "mnist-json", "csv-images", "glyphs", "icon-theme", "dicom"};
const std::vector<std::string> kTextLoaders = {"jsonl", "text-folder", "spam-assassin", "mbox", "maildir"};

std::string knownLoaders() { return core::joinedList(kImageLoaders) + ", " + core::joinedList(kTextLoaders); }

long long distinctUsers(const std::vector<std::string>& users) {
    std::set<std::string> distinct;
    for (const auto& u : users)
        if (!u.empty()) distinct.insert(u);
    return static_cast<long long>(distinct.size());
}

// The "shift" option (image_shift.h), for every image loader in this one place: parsed before the
// load (a typo fails at once, not after reading 100k files), applied to what the loader returns.
Result<ImageShift> shiftOption(const SourceSpec& spec) {
    const auto it = spec.options.find("shift");
    if (it == spec.options.end()) return ImageShift{};
    auto shift = parseImageShift(it->second);
    if (!shift) return Error{sourceContext(spec) + "option 'shift' = '" + it->second + "': " + shift.error().message};
    return shift;
}

Result<ImageDataset> shifted(const SourceSpec& spec, const ImageShift& shift, Result<ImageDataset> loaded) {
    if (!loaded || shift.empty()) return loaded;
    auto out = applyImageShift(std::move(loaded).value(), shift, spec.name);
    if (!out)
        return Error{sourceContext(spec) + "option 'shift' = '" + spec.options.at("shift") +
                     "': " + out.error().message};
    return out;
}

}  // namespace

std::size_t ImageDataset::size() const {
    const std::size_t perImage = imageSize();
    return perImage == 0 ? 0 : pixels.size() / perImage;
}

std::size_t ImageDataset::numLabels() const { return labelNames.size(); }

bool isImageLoader(const std::string& loader) {
    return std::find(kImageLoaders.begin(), kImageLoaders.end(), loader) != kImageLoaders.end();
}

bool isTextLoader(const std::string& loader) {
    return std::find(kTextLoaders.begin(), kTextLoaders.end(), loader) != kTextLoaders.end();
}

void loadStep(const SourceSpec& spec, const LoadControl& control, std::size_t done, std::size_t total,
              std::size_t every) {
    throwIfCancelled(control.cancel);
    if (control.progress && (done % every == 0 || done == total))
        report(control.progress,
               {"load " + spec.name, static_cast<long long>(done), static_cast<long long>(total), ""});
}

Result<ImageDataset> loadImageSource(const SourceSpec& spec) { return loadImageSource(spec, LoadControl{}); }
Result<TextCorpus> loadTextSource(const SourceSpec& spec) { return loadTextSource(spec, LoadControl{}); }
Result<SourceSummary> summarizeSource(const SourceSpec& spec) { return summarizeSource(spec, LoadControl{}); }

Result<ImageDataset> loadImageSource(const SourceSpec& spec, const LoadControl& control) {
    if (spec.path.empty()) return Error{sourceContext(spec) + "no path given"};
    const auto shift = shiftOption(spec);
    if (!shift) return shift.error();
    Result<ImageDataset> loaded = Error{""};
    if (spec.loader == "idx")
        loaded = loadIdxSource(spec);
    else if (spec.loader == "mnist-json")
        loaded = loadMnistJsonSource(spec);
    else if (spec.loader == "csv-images")
        loaded = loadCsvImagesSource(spec, control);
    else if (spec.loader == "glyphs")
        loaded = loadGlyphsSource(spec, control);
    else if (spec.loader == "icon-theme")
        loaded = loadIconThemeSource(spec, control);
    else if (spec.loader == "dicom")
        loaded = loadDicomSource(spec, control);
    else if (isTextLoader(spec.loader))
        return Error{sourceContext(spec) + "'" + spec.loader + "' loads text, expected an image loader (" +
                     core::joinedList(kImageLoaders) + ")"};
    else
        return Error{"source '" + spec.name + "': unknown loader '" + spec.loader + "' (known: " + knownLoaders() +
                     ")"};
    if (loaded && loaded->size() == 0)
        return Error{sourceContext(spec) + "'" + spec.path + "' holds no images (empty data set)"};
    return shifted(spec, *shift, std::move(loaded));
}

Result<TextCorpus> loadTextSource(const SourceSpec& spec, const LoadControl& control) {
    if (spec.path.empty()) return Error{sourceContext(spec) + "no path given"};
    throwIfCancelled(control.cancel);
    if (spec.loader == "jsonl") return loadJsonlSource(spec);
    if (spec.loader == "text-folder") return loadTextFolderSource(spec, control);
    if (spec.loader == "spam-assassin") return loadSpamAssassinSource(spec, control);
    if (spec.loader == "mbox") return loadMboxSource(spec);
    if (spec.loader == "maildir") return loadMaildirSource(spec, control);
    if (isImageLoader(spec.loader))
        return Error{sourceContext(spec) + "'" + spec.loader + "' loads images, expected a text loader"};
    return Error{"source '" + spec.name + "': unknown loader '" + spec.loader + "' (known: " + knownLoaders() + ")"};
}

Result<SourceSummary> summarizeSource(const SourceSpec& spec, const LoadControl& control) {
    SourceSummary summary;
    if (isImageLoader(spec.loader)) {
        auto images = loadImageSource(spec, control);
        if (!images) return images.error();
        summary.kind = SourceKind::Images;
        summary.examples = static_cast<long long>(images->size());
        summary.labelNames = images->labelNames;
        summary.users = distinctUsers(images->users);
        summary.contentHash = contentHash(*images);
        summary.channels = images->channels;
        summary.height = images->height;
        summary.width = images->width;
        return summary;
    }
    auto corpus = loadTextSource(spec, control);
    if (!corpus) return corpus.error();
    summary.kind = SourceKind::Text;
    summary.examples = static_cast<long long>(corpus->documents.size());
    std::set<std::string> domains;
    std::vector<std::string> users;
    for (const auto& doc : corpus->documents) {
        domains.insert(doc.domain);
        users.push_back(doc.user);
    }
    summary.domains.assign(domains.begin(), domains.end());
    summary.users = distinctUsers(users);
    summary.contentHash = contentHash(*corpus);
    return summary;
}

}  // namespace dpmix::data
