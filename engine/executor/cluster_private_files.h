#pragma once
// A cluster job folder holds data derived from the sensitive data (split A's proxy outputs and
// labels, a project copy, AdaMix-R's features; docs/CLUSTER.md "What is written where"), so it is
// the owner's only: folders 0700, files 0600, whatever the umask. The jobs root F.dpmix.jobs/
// is tightened too. Hard links to the project's own model files keep the project's mode (the
// folder around them keeps everyone else out).
#include "engine/core/result.h"

#include <filesystem>

namespace dpmix::executor::cluster {

/// Creates `dir` (and missing parents) and sets it to 0700.
Status makePrivateDirectory(const std::filesystem::path& dir);

/// Sets an existing file to 0600.
Status makePrivateFile(const std::filesystem::path& file);

}  // namespace dpmix::executor::cluster
