#pragma once
// Writing a private set S as a data source the project's own loaders read back (docs/PSG.md,
// "Export"), so it can be registered as a public source of another study. S is DP: using it is
// post-processing of the ε its PSG run already spent. Torch-free.
#include "engine/core/result.h"
#include "engine/psg_set/private_set_data.h"

#include <filesystem>
#include <string>
#include <vector>

namespace dpmix::psg {

enum class SetExportFormat {
    Idx,     // images-idx3-ubyte + labels-idx1-ubyte (grey only): loader "idx"
    PngCsv,  // one PNG per image + manifest.csv with one 0/1 column per class: loader "csv-images"
};

bool parseSetExportFormat(const std::string& text, SetExportFormat& out);  // "idx", "png-csv"

struct SetExportResult {
    std::filesystem::path folder;
    std::vector<std::string> files;  // written, relative to the folder
    std::string sourceJson;          // a public_sources entry that loads the set (also written as source.json)
};

/// Writes the set into `folder`, which must not exist or be empty. Pixels are clamped to [0, 1]
/// and rounded to 8 bits (round(255·x)). Everything is written into a temporary folder beside it
/// and renamed into place, so an error leaves nothing behind. Errors: a colour set as idx, a
/// folder that holds files, a set whose sizes disagree, class names with a comma (the loaders'
/// separator).
Result<SetExportResult> exportPrivateSet(const PrivateSet& set, const std::vector<std::string>& classNames,
                                         SetExportFormat format, const std::filesystem::path& folder,
                                         const std::string& sourceName);

}  // namespace dpmix::psg
