#pragma once
// The "dicom" loader's parts (options in source_loader.h): the files of a folder or DICOMDIR, one
// record per file read, the survey the workbench's source dialog shows, and the labels. Header
// values (UIDs, accession numbers) live in memory only while a source loads; the data set keeps a
// keyed pseudonym per patient (dicom_pseudonym.h) and the pixels and labels.
#include "engine/core/result.h"
#include "engine/data/dicom_file.h"
#include "engine/data/source_loader.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::data {

/// One file as the loader reads it: its frames fitted to the model size and what it needs of the
/// header. `user` is the pseudonym ("" when the file has no user tag, or users are not read).
struct DicomRecord {
    std::string path;
    std::vector<DecodedImage> frames;
    std::string user, study, series, labelKey, labelValue;
    long long instanceNumber = 0;
    std::vector<DicomTag> present;  // the tags the file holds (their values are not kept)
};

/// The loader's options, parsed and checked once before any file is read.
struct DicomOptions {
    std::optional<DicomTag> userTag;  // none: option user_tag = none
    std::string userTagName = "PatientID";
    bool missingUserOneUnit = false;  // option missing_user = one-unit
    bool perSeries = false;           // option per = series
    bool skipBadFiles = false;        // option bad_files = skip
    DicomReadRules rules;
    int height = 64, width = 64;
    std::size_t limit = 0;
    std::optional<DicomTag> labelKeyTag, labelTag;  // labels_csv's key, or label_tag
    std::string labelKeyName, labelTagName;
};

/// `requireLabels` false: no label option is needed (the survey, before labels are chosen).
Result<DicomOptions> dicomOptions(const SourceSpec& spec, bool requireLabels = true);

/// The DICOM files of the source: a folder read recursively (sorted paths; files without "DICM"
/// at offset 128 and files named DICOMDIR skipped, `skipped` counts them), or a DICOMDIR's files.
Result<std::vector<std::string>> dicomSourceFiles(const SourceSpec& spec, std::size_t* skipped = nullptr);

/// Reads the files into records, in order, handing each to `take` (false stops); `key` is the
/// pseudonym key ("" leaves `user` empty). A file's error says what is wrong with it, without its
/// path. Progress and cancellation through `control`.
Status readDicomRecords(const SourceSpec& spec, const std::vector<std::string>& paths, const DicomOptions& options,
                        const std::string& key, const LoadControl& control,
                        const std::function<bool(std::size_t, Result<DicomRecord>)>& take);

/// Sets the labels of `out` (one image per entry of `recordOf`, the record it comes from): from
/// the label CSV (labels_csv) or the header tag (label_tag).
Status attachDicomLabels(const SourceSpec& spec, const DicomOptions& options, const std::vector<DicomRecord>& records,
                         const std::vector<std::size_t>& recordOf, ImageDataset& out);

/// What the workbench's source dialog shows of a DICOM folder before it is registered.
struct DicomSurvey {
    struct FileError {
        std::string path, reason;
    };
    long long patients = 0, studies = 0, series = 0, files = 0, images = 0, skippedFiles = 0;
    long long withoutUser = 0;          // files without the user tag
    std::vector<std::string> tags;      // tags found in any file: "PatientID (0010,0020)", by tag number
    std::vector<FileError> errors;      // files that cannot be read, with the reason
    std::vector<DecodedImage> preview;  // the first images, windowed and fitted to the model size
};

/// Reads every file of the source (no labels, no key: patients are counted, never kept), keeping
/// the first `previewImages` images and every file's error. An error only when the options or the
/// folder are bad.
Result<DicomSurvey> surveyDicomSource(const SourceSpec& spec, std::size_t previewImages,
                                      const LoadControl& control = {});

}  // namespace dpmix::data
