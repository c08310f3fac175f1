#pragma once
// How a project spec names a data set: which loader reads it, from where, with which options.
// Shared by the data layer (which loads it) and the project file (which stores it).
#include <map>
#include <string>

namespace dpmix::data {

struct SourceSpec {
    std::string name;                            // user-facing name, unique in a project
    std::string loader;                          // "idx", "mnist-json", "csv-images", "glyphs", "icon-theme", "dicom",
                                                 // "jsonl", "text-folder", "spam-assassin", "mbox", "maildir"
    std::string path;                            // file or folder (absolute once resolved)
    std::map<std::string, std::string> options;  // loader-specific, e.g. {"labels": "...idx1-ubyte.gz"}
};

}  // namespace dpmix::data
