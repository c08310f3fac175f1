#include "engine/project/declared_labels.h"

namespace dpmix::project {

std::string declaredLabelOption(const data::SourceSpec& source) {
    if (source.loader == "idx") return source.options.count("labels") ? "classes" : "";
    if (source.loader == "mnist-json") return "classes";
    if (source.loader == "csv-images") return "labels";
    if (source.loader == "icon-theme") return "contexts";
    if (source.loader == "dicom") return source.options.count("label_tag") ? "classes" : "labels";
    return "";  // text loaders: no labels; glyphs: its classes are its characters, never the data's
}

Status refuseUndeclaredLabels(const data::SourceSpec& source, const std::string& path) {
    const std::string key = declaredLabelOption(source);
    if (key.empty() || source.options.count(key)) return std::nullopt;
    const std::string field = path + ".options." + key;
    const std::string expected =
        source.loader == "dicom"
            ? (key == "labels" ? "the comma-separated columns of its label CSV the study may use"
                               : "the comma-separated values of its label tag the study may use, e.g. \"CHEST,HAND\"")
        : key == "labels" ? "the comma-separated label columns (or, with a finding_column, findings) the study may use"
        : key == "contexts" ? "the comma-separated icon contexts the study may use, e.g. \"actions,devices,places\""
        : source.loader == "mnist-json"
            ? "the ten digits' names, e.g. \"0,1,2,3,4,5,6,7,8,9\""
            : "comma-separated class names, one per label value 0..K-1, or \"fashion-mnist\"";
    return Error{field + ": missing: the sensitive " + source.loader + " source '" + source.name +
                 "' must declare its label set (" + expected +
                 "); dpmix never reads the label set from the sensitive data, which would reveal the classes "
                 "that occur in it"};
}

}  // namespace dpmix::project
