#pragma once
// Reading whole files, transparently gunzipping ".gz" (and any gzip-magic) files.
#include "engine/core/result.h"

#include <string>
#include <vector>

namespace dpmix::data {

/// The file's bytes; a gzip file (magic 1f 8b) is decompressed. Errors name the file.
Result<std::string> readFileMaybeGzip(const std::string& path);

/// The file's raw bytes, never decompressed.
Result<std::string> readFileRaw(const std::string& path);

}  // namespace dpmix::data
