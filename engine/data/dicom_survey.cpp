// What the workbench's source dialog shows of a DICOM folder: counts, the tags found, a preview
// and every file's error, read before the source is registered. Patients, studies and series are
// counted in memory (users by a keyed hash whose key is drawn for this survey and forgotten).
#include "engine/data/dicom_source.h"
#include "engine/data/loader_options.h"
#include "engine/data/text_loaders.h"

#include <random>
#include <set>

namespace dpmix::data {
namespace {

std::string surveyKey() {
    std::random_device device;
    std::string key;
    for (int i = 0; i < 8; ++i) key += std::to_string(device());
    return key;
}

}  // namespace

Result<DicomSurvey> surveyDicomSource(const SourceSpec& spec, std::size_t previewImages, const LoadControl& control) {
    auto options = dicomOptions(spec, false);
    if (!options) return options.error();
    std::size_t skipped = 0;
    auto files = dicomSourceFiles(spec, &skipped);
    if (!files) return files.error();
    const std::string key = surveyKey();
    DicomSurvey survey;
    survey.skippedFiles = static_cast<long long>(skipped);
    survey.files = static_cast<long long>(files->size());
    std::set<std::string> patients, studies, series;
    std::set<DicomTag> tags;
    auto stopped =
        readDicomRecords(spec, *files, *options, key, control, [&](std::size_t f, Result<DicomRecord> record) {
            if (!record) {
                survey.errors.push_back({(*files)[f], record.error().message});
                return true;
            }
            if (options->userTag && record->user.empty()) ++survey.withoutUser;
            if (!record->user.empty()) patients.insert(record->user);
            if (!record->study.empty()) studies.insert(record->study);
            if (!record->series.empty()) series.insert(record->series);
            tags.insert(record->present.begin(), record->present.end());
            survey.images += static_cast<long long>(record->frames.size());
            for (const auto& frame : record->frames)
                if (survey.preview.size() < previewImages) survey.preview.push_back(frame);
            return true;
        });
    if (stopped) return Error{sourceContext(spec) + stopped->message};
    survey.patients = static_cast<long long>(patients.size());
    survey.studies = static_cast<long long>(studies.size());
    survey.series = static_cast<long long>(series.size());
    for (const auto& tag : tags) survey.tags.push_back(dicomTagLabel(tag));
    return survey;
}

}  // namespace dpmix::data
