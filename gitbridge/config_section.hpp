#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ws::gitbridge {

/// One `section.subsection.key = value` line of a git-config file.
struct ConfigEntry {
  std::string subsection; ///< as written (case kept); empty for `[section]`
  std::string key;        ///< lower case, as git compares it
  std::string value;      ///< empty for a key without '=' (git's "true")
  size_t file = 0;        ///< index into the `files` given to load_config_section
};

/// Every entry of `section` in `files`, the first file's first, each file in its order (so a
/// later file's value wins, and an empty value can reset a list collected so far, as git does
/// for `credential.helper`). Missing files are empty. Read with libgit2, so the syntax,
/// quoting, includes and escapes are git's. Throws GitError naming the file for bad syntax.
std::vector<ConfigEntry> load_config_section(const std::vector<std::filesystem::path>& files,
                                             const std::string& section);

} // namespace ws::gitbridge
