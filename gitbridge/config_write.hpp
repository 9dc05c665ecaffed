#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ws::gitbridge {

/// What set_config_defaults did.
struct ConfigWriteResult {
  std::vector<std::string> set; ///< names written
};

/// Writes each `name = value` of `entries` into the git-config file `file` (libgit2: git's
/// syntax, its lock file and rename), unless the file already has that name with a value
/// `keep(name, value)` says to keep. The caller makes sure `file` is a regular file (not a
/// symlink): libgit2 follows symlinks. Throws GitError naming the file.
ConfigWriteResult
set_config_defaults(const std::filesystem::path& file,
                    const std::vector<std::pair<std::string, std::string>>& entries,
                    bool (*keep)(const std::string& name, const std::string& value));

} // namespace ws::gitbridge
