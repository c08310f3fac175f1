#pragma once
// Files and programs of a cluster job (docs/CLUSTER.md): atomic writes that a reader on a shared
// file system sees whole or not at all, and sbatch/squeue/sacct/scancel run without a shell.
#include "engine/core/result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::executor::cluster {

/// The whole file; `ok`, when given, says whether it could be opened.
std::string readText(const std::filesystem::path& p, bool* ok = nullptr);

/// Written under a temporary name in the same folder, flushed to disk, then renamed; mode 0600.
Status writeAtomically(const std::filesystem::path& p, const std::string& text);

/// `s` in single quotes for a POSIX shell.
std::string shellQuote(const std::string& s);

std::optional<std::filesystem::path> findOnPath(const std::string& name);

struct ProcessResult {
    int rc = -1;
    std::string out, err;
};

/// Runs a program (found on PATH) with stdin from /dev/null and its output captured; no shell.
ProcessResult runProgram(const std::vector<std::string>& argv);

/// Without leading and trailing blanks and line ends.
std::string trimmed(std::string s);

/// This program's executable (what an array task runs), else "dpmix".
std::filesystem::path selfExecutable();

}  // namespace dpmix::executor::cluster
