// The "dicom" loader's options (source_loader.h), parsed once before any file is read, and the
// files it reads: a folder's (recursive) or a DICOMDIR's.
#include "engine/core/file_door.h"
#include "engine/data/dicom_source.h"
#include "engine/data/file_bytes.h"
#include "engine/data/loader_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

namespace dpmix::data {
namespace {

Result<std::string> choiceOption(const SourceSpec& spec, const std::string& key,
                                 const std::vector<std::string>& allowed) {
    const std::string value = optionOr(spec, key, allowed.front());
    if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    return Error{sourceContext(spec) + "option '" + key + "' = '" + value + "' is not valid, expected " + list};
}

Result<DicomTag> tagOption(const SourceSpec& spec, const std::string& key, const std::string& text) {
    auto tag = parseDicomTag(trim(text));
    if (!tag) return Error{sourceContext(spec) + "option '" + key + "': " + tag.error().message};
    return tag;
}

// "file" (default), "minmax", or "C,W": a chosen centre and width (width >= 1).
Result<DicomWindow> windowOption(const SourceSpec& spec) {
    const std::string text = trim(optionOr(spec, "window", "file"));
    if (text == "file") return DicomWindow{DicomWindowFrom::File, 0, 1};
    if (text == "minmax") return DicomWindow{DicomWindowFrom::MinMax, 0, 1};
    const auto parts = splitList(text);
    double values[2] = {0, 0};
    bool ok = parts.size() == 2;
    for (std::size_t i = 0; ok && i < 2; ++i) {
        const auto [end, ec] = std::from_chars(parts[i].data(), parts[i].data() + parts[i].size(), values[i]);
        ok = ec == std::errc() && end == parts[i].data() + parts[i].size() && std::isfinite(values[i]);
    }
    if (!ok || values[1] < 1)
        return Error{sourceContext(spec) + "option 'window' = '" + text +
                     "' is not valid, expected file, minmax or CENTRE,WIDTH (e.g. 40,400; width >= 1)"};
    return DicomWindow{DicomWindowFrom::Fixed, values[0], values[1]};
}

Status labelOptions(const SourceSpec& spec, DicomOptions& o) {
    const bool csv = spec.options.count("labels_csv") > 0, tag = spec.options.count("label_tag") > 0;
    if (csv == tag)
        return Error{sourceContext(spec) + (csv ? "options 'labels_csv' and 'label_tag' exclude each other"
                                                : "no labels: set option labels_csv (a CSV keyed by SOPInstanceUID, "
                                                  "StudyInstanceUID or AccessionNumber) or label_tag (a header tag)")};
    if (tag) {
        o.labelTagName = trim(spec.options.at("label_tag"));
        auto t = tagOption(spec, "label_tag", o.labelTagName);
        if (!t) return t.error();
        o.labelTag = *t;
        return std::nullopt;
    }
    auto key = choiceOption(spec, "label_key", {"SOPInstanceUID", "StudyInstanceUID", "AccessionNumber"});
    if (!key) return key.error();
    o.labelKeyName = *key;
    o.labelKeyTag = *parseDicomTag(*key);
    return std::nullopt;
}

Status userOptions(const SourceSpec& spec, DicomOptions& o) {
    o.userTagName = trim(optionOr(spec, "user_tag", "PatientID"));
    if (o.userTagName != "none") {
        auto t = tagOption(spec, "user_tag", o.userTagName);
        if (!t) return t.error();
        o.userTag = *t;
    }
    auto missing = choiceOption(spec, "missing_user", {"refuse", "one-unit"});
    if (!missing) return missing.error();
    o.missingUserOneUnit = *missing == "one-unit";
    return std::nullopt;
}

Status readingOptions(const SourceSpec& spec, DicomOptions& o) {
    auto per = choiceOption(spec, "per", {"instance", "series"});
    auto frames = choiceOption(spec, "frames", {"refuse", "split"});
    auto colour = choiceOption(spec, "colour", {"refuse", "luminance"});
    auto bad = choiceOption(spec, "bad_files", {"error", "skip"});
    for (const auto* r : {&per, &frames, &colour, &bad})
        if (!*r) return r->error();
    o.perSeries = *per == "series";
    o.rules.frames = *frames == "split" ? DicomFrames::Split : DicomFrames::Refuse;
    o.rules.colour = *colour == "luminance" ? DicomColour::Luminance : DicomColour::Refuse;
    o.skipBadFiles = *bad == "skip";
    auto window = windowOption(spec);
    if (!window) return window.error();
    o.rules.window = *window;
    return std::nullopt;
}

bool isNamedDicomDir(const std::filesystem::path& path) { return path.filename() == "DICOMDIR"; }

Result<std::vector<std::string>> folderFiles(const SourceSpec& spec, std::size_t* skipped) {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<std::string> candidates;
    for (auto it = fs::recursive_directory_iterator(spec.path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec) && !isNamedDicomDir(it->path())) candidates.push_back(it->path().string());
    if (ec) return Error{sourceContext(spec) + "cannot list folder '" + spec.path + "': " + ec.message()};
    std::sort(candidates.begin(), candidates.end());
    std::vector<std::string> files;
    for (const auto& path : candidates) {
        auto prefix = files::readPrefix(path, "a DICOM file", 132);
        if (prefix && looksLikeDicomFile(*prefix))
            files.push_back(path);
        else if (skipped)
            ++*skipped;
    }
    return files;
}

Result<std::vector<std::string>> dicomDirListing(const SourceSpec& spec) {
    auto bytes = readFileRaw(spec.path);
    if (!bytes) return Error{sourceContext(spec) + bytes.error().message};
    auto listed = dicomDirFiles(*bytes);
    if (!listed) return Error{sourceContext(spec) + "DICOMDIR '" + spec.path + "': " + listed.error().message};
    const auto folder = std::filesystem::path(spec.path).parent_path();
    std::vector<std::string> files;
    for (const auto& relative : *listed) {
        if (relative.find("..") != std::string::npos)
            return Error{sourceContext(spec) + "DICOMDIR '" + spec.path +
                         "' references a file outside its folder, expected paths below it"};
        files.push_back((folder / relative).string());
    }
    return files;
}

}  // namespace

Result<DicomOptions> dicomOptions(const SourceSpec& spec, bool requireLabels) {
    if (auto unknown = checkKnownOptions(
            spec, {"user_tag",   "missing_user", "per",        "frames", "colour",         "window",    "size",
                   "labels_csv", "label_key",    "key_column", "labels", "ignore_columns", "uncertain", "blank",
                   "unlabelled", "label_tag",    "classes",    "tasks",  "pseudonym_key",  "bad_files"},
            {"uncertain.", "blank."}))
        return *unknown;
    DicomOptions o;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    o.limit = *limit;
    auto size = sizeOption(spec, "64");
    if (!size) return size.error();
    o.height = size->first;
    o.width = size->second;
    for (auto* part : {&userOptions, &readingOptions})
        if (auto bad = part(spec, o)) return *bad;
    const bool labelled = spec.options.count("labels_csv") || spec.options.count("label_tag");
    if (requireLabels || labelled)
        if (auto bad = labelOptions(spec, o)) return *bad;
    return o;
}

Result<std::vector<std::string>> dicomSourceFiles(const SourceSpec& spec, std::size_t* skipped) {
    auto kind = files::kindOf(spec.path);
    if (!kind) return Error{sourceContext(spec) + kind.error().message};
    std::vector<std::string> files;
    if (*kind == files::Kind::Directory) {
        auto listed = folderFiles(spec, skipped);
        if (!listed) return listed.error();
        files = std::move(listed).value();
    } else if (*kind == files::Kind::Regular) {
        auto listed = dicomDirListing(spec);
        if (!listed) return listed.error();
        files = std::move(listed).value();
    } else {
        return Error{sourceContext(spec) + "'" + spec.path + "' is " +
                     (*kind == files::Kind::Missing ? "missing" : "not a folder or a file") +
                     ", expected a folder of DICOM files or a DICOMDIR"};
    }
    if (files.empty())
        return Error{sourceContext(spec) + "'" + spec.path + "' holds no DICOM files (files with 'DICM' at byte 128)"};
    return files;
}

}  // namespace dpmix::data
