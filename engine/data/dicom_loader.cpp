// "dicom" loader: a folder (recursive) of DICOM files or a DICOMDIR, one image per SOP instance
// (or per series), the patient from the header as the user (a keyed pseudonym), labels from a CSV
// keyed by a UID or the accession number, or from a header tag.
#include "engine/data/dicom_pseudonym.h"
#include "engine/data/dicom_source.h"
#include "engine/data/file_bytes.h"
#include "engine/data/image_loaders.h"
#include "engine/data/loader_options.h"
#include "engine/data/text_loaders.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

namespace dpmix::data {
namespace {

const DicomTag kStudyUid{0x0020, 0x000d}, kSeriesUid{0x0020, 0x000e}, kInstanceNumber{0x0020, 0x0013};

std::vector<DicomTag> tagsToRead(const DicomOptions& o) {
    std::vector<DicomTag> tags = {kStudyUid, kSeriesUid, kInstanceNumber};
    for (const auto& t : {o.userTag, o.labelKeyTag, o.labelTag})
        if (t) tags.push_back(*t);
    return tags;
}

std::string valueOf(const DicomInstance& instance, const std::optional<DicomTag>& tag) {
    if (!tag) return {};
    const auto it = instance.values.find(*tag);
    return it == instance.values.end() ? std::string() : it->second;
}

long long instanceNumberOf(const DicomInstance& instance) {
    const std::string text = valueOf(instance, kInstanceNumber);
    long long n = 0;
    std::from_chars(text.data(), text.data() + text.size(), n);
    return n;
}

// Files without the user tag: refused with their paths (at most 5 named), since an image without
// its patient would be a unit of its own and the patient's other images not protected with it.
Status refuseMissingUsers(const SourceSpec& spec, const DicomOptions& o, const std::vector<std::string>& paths) {
    if (paths.empty()) return std::nullopt;
    std::string named;
    for (std::size_t i = 0; i < std::min<std::size_t>(paths.size(), 5); ++i)
        named += (i ? ", '" : "'") + paths[i] + "'";
    if (paths.size() > 5) named += " and " + std::to_string(paths.size() - 5) + " more";
    return Error{sourceContext(spec) + std::to_string(paths.size()) + " DICOM file(s) have no " + o.userTagName +
                 " (the user tag): " + named +
                 ". Every image needs its patient for user-level privacy: set option user_tag to another tag, or "
                 "missing_user = one-unit to protect all such files together as one unit"};
}

// One image per series: the middle instance by InstanceNumber (then path), e.g. the PA view of a
// one-image chest series or the middle slice of a stack. Records without a series are their own.
std::vector<DicomRecord> onePerSeries(std::vector<DicomRecord> records) {
    std::map<std::string, std::vector<std::size_t>> bySeries;
    for (std::size_t i = 0; i < records.size(); ++i)
        bySeries[records[i].series.empty() ? "file:" + records[i].path : records[i].series].push_back(i);
    std::vector<std::size_t> kept;
    for (auto& [series, members] : bySeries) {
        std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
            return std::tie(records[a].instanceNumber, records[a].path) <
                   std::tie(records[b].instanceNumber, records[b].path);
        });
        kept.push_back(members[(members.size() - 1) / 2]);
    }
    std::sort(kept.begin(), kept.end());  // file order
    std::vector<DicomRecord> out;
    for (auto i : kept) out.push_back(std::move(records[i]));
    return out;
}

struct ReadFiles {
    std::vector<DicomRecord> records;
    std::vector<std::string> withoutUser;
    std::size_t badFiles = 0;
};

Result<ReadFiles> readAll(const SourceSpec& spec, const DicomOptions& o, const std::vector<std::string>& files,
                          const std::string& key, const LoadControl& control) {
    ReadFiles read;
    std::size_t images = 0;
    std::optional<Error> failed;
    auto stopped = readDicomRecords(spec, files, o, key, control, [&](std::size_t f, Result<DicomRecord> readable) {
        if (!readable && o.skipBadFiles) {
            ++read.badFiles;
            return true;
        }
        if (!readable) {
            failed = Error{sourceContext(spec) + "DICOM file '" + files[f] + "': " + readable.error().message};
            return false;
        }
        DicomRecord record = std::move(readable).value();
        if (o.userTag && record.user.empty()) {
            if (!o.missingUserOneUnit) read.withoutUser.push_back(files[f]);
            if (o.missingUserOneUnit) record.user = dicomPseudonym(key, std::string("\0no-user", 8));
        }
        images += record.frames.size();
        read.records.push_back(std::move(record));
        return o.perSeries || images < o.limit;
    });
    if (stopped) return Error{sourceContext(spec) + stopped->message};
    if (failed) return *failed;
    return read;
}

DicomRecord recordOf(const std::string& path, DicomInstance instance, const DicomOptions& o, const std::string& key) {
    DicomRecord record;
    record.path = path;
    for (const auto& frame : instance.frames) record.frames.push_back(resizeImage(frame, o.height, o.width));
    const std::string user = valueOf(instance, o.userTag);
    if (!user.empty() && !key.empty()) record.user = dicomPseudonym(key, user);
    record.study = valueOf(instance, kStudyUid);
    record.series = valueOf(instance, kSeriesUid);
    record.instanceNumber = instanceNumberOf(instance);
    record.labelKey = valueOf(instance, o.labelKeyTag);
    record.labelValue = valueOf(instance, o.labelTag);
    record.present = std::move(instance.present);
    return record;
}

ImageDataset assemble(const DicomOptions& o, const std::vector<DicomRecord>& records,
                      std::vector<std::size_t>& recordOf) {
    ImageDataset out;
    out.height = o.height;
    out.width = o.width;
    for (std::size_t r = 0; r < records.size(); ++r)
        for (const auto& frame : records[r].frames) {
            if (recordOf.size() >= o.limit) return out;
            out.pixels.insert(out.pixels.end(), frame.pixels.begin(), frame.pixels.end());
            if (o.userTag) out.users.push_back(records[r].user);
            recordOf.push_back(r);
        }
    return out;
}

}  // namespace

Status readDicomRecords(const SourceSpec& spec, const std::vector<std::string>& paths, const DicomOptions& options,
                        const std::string& key, const LoadControl& control,
                        const std::function<bool(std::size_t, Result<DicomRecord>)>& take) {
    bool cancelled = false;
    auto started =
        readDicomFiles(paths, tagsToRead(options), options.rules, [&](std::size_t i, Result<DicomInstance> instance) {
            if (control.cancel.isCancelled()) {
                cancelled = true;
                return false;
            }
            const std::size_t done = i + 1;  // loadStep would throw from here
            if (control.progress && (done % 16 == 0 || done == paths.size()))
                report(control.progress,
                       {"load " + spec.name, static_cast<long long>(done), static_cast<long long>(paths.size()), ""});
            if (!instance) return take(i, instance.error());
            return take(i, recordOf(paths[i], std::move(instance).value(), options, key));
        });
    if (cancelled) throwIfCancelled(control.cancel);
    return started;
}

Result<ImageDataset> loadDicomSource(const SourceSpec& spec, const LoadControl& control) {
    auto options = dicomOptions(spec);
    if (!options) return options.error();
    auto files = dicomSourceFiles(spec);
    if (!files) return files.error();
    std::string key;
    if (options->userTag) {
        auto k = dicomPseudonymKey(spec);
        if (!k) return k.error();
        key = std::move(k).value();
    }
    auto readable = readAll(spec, *options, *files, key, control);
    if (!readable) return readable.error();
    ReadFiles read = std::move(readable).value();
    if (auto missing = refuseMissingUsers(spec, *options, read.withoutUser)) return *missing;
    if (read.records.empty())
        return Error{sourceContext(spec) + "none of the " + std::to_string(files->size()) +
                     " DICOM files could be read (bad_files = skip skipped them all)"};
    if (options->perSeries) read.records = onePerSeries(std::move(read.records));
    std::vector<std::size_t> recordOf;
    ImageDataset out = assemble(*options, read.records, recordOf);
    if (auto bad = attachDicomLabels(spec, *options, read.records, recordOf, out)) return *bad;
    return out;
}

}  // namespace dpmix::data
