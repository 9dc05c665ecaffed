#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ws::gitbridge {

/// One `name = value` of a git config: the name as libgit2 gives it (section and key in lower
/// case, the subsection as written: `url.https://host/.insteadof`).
struct GlobalConfigEntry {
  std::string name;
  std::string value;
  bool bare = false; ///< `key` alone, no `=` (git's true)
};

/// The person's global git config as git reads it for `repo`: `$XDG_CONFIG_HOME/git/config`
/// (or `~/.config/git/config`), then `~/.gitconfig`, with `include.path` and `includeIf`
/// (gitdir, onbranch: decided for `repo`) resolved into the entries of the file that includes
/// them, in git's order (a later value wins). Without a repository at `repo`, the global
/// files alone (no `includeIf` applies). Needs a live LibGit2; throws GitError naming the
/// file for a broken config.
std::vector<GlobalConfigEntry> global_config_entries(const std::filesystem::path& repo);

/// `entries` in git-config syntax, one section header per run of entries that share it,
/// values quoted and escaped: git reads back exactly these names and values.
std::string config_text(const std::vector<GlobalConfigEntry>& entries);

} // namespace ws::gitbridge
