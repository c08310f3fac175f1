#pragma once
// For the cluster-unit tests without Slurm: an `sbatch` first on PATH that accepts any job array
// and prints `slurmJobId`; the tests then run each unit in process, as `dpmix worker` would.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace dpmix::testing {

inline void installStandInSbatch(const std::string& dir, const std::string& slurmJobId) {
    namespace fs = std::filesystem;
    fs::create_directories(dir + "/bin");
    std::ofstream(dir + "/bin/sbatch") << "#!/bin/sh\necho " << slurmJobId << "\n";
    fs::permissions(dir + "/bin/sbatch", fs::perms::owner_all);
    const std::string path = dir + "/bin:" + std::string(std::getenv("PATH") ? std::getenv("PATH") : "");
    ::setenv("PATH", path.c_str(), 1);
}

}  // namespace dpmix::testing
