#include "engine/executor/cluster_private_files.h"

namespace dpmix::executor::cluster {
namespace fs = std::filesystem;

Status makePrivateDirectory(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec) fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
    if (ec) return Error{"cannot create the private folder " + dir.string() + " (mode 0700): " + ec.message()};
    return std::nullopt;
}

Status makePrivateFile(const fs::path& file) {
    std::error_code ec;
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
    if (ec) return Error{"cannot make " + file.string() + " private (mode 0600): " + ec.message()};
    return std::nullopt;
}

}  // namespace dpmix::executor::cluster
