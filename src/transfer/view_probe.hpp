#pragma once

#include "filters/policy.hpp"
#include "fuse/unique_fd.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <sys/stat.h>

#include <array>
#include <optional>
#include <string>
#include <unordered_map>

namespace ws {

/// Looks at objects as they will stand after apply: the state's upper layer first, else the
/// real tree; or at the real tree alone (what stays where a change is withheld). Answers the
/// plan's questions about a path's surroundings: is there a `.git` or a `pyvenv.cfg` above it,
/// where does a symlink lead. Never follows a symlink while opening.
class ViewProbe {
public:
  ViewProbe(const Workspace& w, const StateSource& s);

  enum class World { AfterApply, RealOnly };

  bool lstat(const std::string& path, struct stat& st, World world = World::AfterApply) const;
  std::optional<std::string> readlink(const std::string& path, World world) const;

  /// Some ancestor directory of `path` holds `name` (answers are cached per directory: a
  /// change of 200,000 files in a few directories asks a few questions).
  bool ancestor_holds(const std::string& path, const char* name);

  /// Some directory above `path` is a git directory laid out in the open (a bare repository:
  /// HEAD, objects/ and refs/ side by side, as git's is_git_directory asks): git run there obeys
  /// its config (core.fsmonitor, core.worktree) as it would a nested `.git`.
  bool inside_bare_repo(const std::string& path);

  /// Resolves `target` of the symlink at `link` component by component, following symlinks
  /// met on the way, in both worlds; the worse answer wins.
  filters::SymlinkReach symlink_reach(const std::string& link, const std::string& target) const;

private:
  filters::SymlinkReach resolve(const std::string& link, const std::string& target,
                                World world) const;
  fuse::UniqueFd m_real;
  fuse::UniqueFd m_upper;
  /// "dir\0name" -> `name` stands in `dir` or a directory above it.
  std::unordered_map<std::string, bool> m_holds;
  /// The last answer per name (names are the callers' literals, compared by address).
  struct Recent {
    const char* name = nullptr;
    std::string dir;
    bool holds = false;
  };
  std::array<Recent, 4> m_recent;
};

} // namespace ws
