#pragma once

#include "fuse/beneath.hpp"
#include "fuse/layout.hpp"
#include "fuse/meta_store.hpp"
#include "fuse/unique_fd.hpp"

#include <sys/stat.h>
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ws::fuse {

enum class ChangeKind : char {
  Added = 'A',
  Modified = 'M',
  Deleted = 'D',
  Renamed = 'R',
  TypeChanged = 'T',
};

/// One path whose content, type or mode in the view differs from what the real tree held
/// when the agent first touched it.
struct Change {
  ChangeKind kind = ChangeKind::Modified;
  std::string path;             ///< the view's path (for Deleted: the path that is gone)
  std::string from;             ///< Renamed: where it came from
  std::optional<Identity> base; ///< what was there before (M, T, D; R: the origin)
  mode_t mode = 0;              ///< st_mode in the view (0 for Deleted)
  uint64_t size = 0;            ///< size in the view
  /// The view's object as the changes were computed (0 for Deleted): which inode, and when
  /// its content (mtime) and its inode (ctime, which no one can set) last changed. Enough to
  /// know later, without reading it, that a file is still what was read then.
  uint64_t ino = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  /// Deleted: no record of this file was made when the agent deleted it (a directory above it
  /// was removed or moved whole, or the person put the file there since): what the agent
  /// saw of it is unknown, so `ws apply` must not delete it on its own.
  bool unseen = false;
  /// st_mode of the real tree's object at `path` when the changes were computed (0: none),
  /// where that was looked at (for paths without a record of what the agent found); unset
  /// elsewhere.
  std::optional<mode_t> real_mode;
};

/// A file time as Change keeps it.
inline int64_t nanoseconds(const timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

/// Which changes compute_changes lists.
enum class ChangeScope {
  /// The working tree: everything but the agent's private git state (`.git`, described by
  /// one line about the agent's git instead; docs/agent-git.md). A workspace without a
  /// private git state lists its `.git` changes here, as it always did.
  Work,
  /// Only the files of the agent's private git state that changed since it was made.
  AgentGit,
};

/// Computes the workspace's changes from its files alone: the upper layer, meta.db and the
/// real tree. Needs no daemon; costs O(changed paths), not O(repository). Sorted by path.
std::vector<Change> compute_changes(const std::filesystem::path& lower_dir,
                                    const WorkspaceLayout& layout,
                                    ChangeScope scope = ChangeScope::Work);

/// compute_changes for `paths` alone (e.g. those a checkpoint says changed since the one
/// before): each path's object in the upper layer, and the real files its record deletes.
/// A rename is found when both its sides are among `paths`.
std::vector<Change> compute_changes_at(const std::filesystem::path& lower_dir,
                                       const WorkspaceLayout& layout,
                                       const std::vector<std::string>& paths);

/// compute_changes(...).size(), without looking at each file of a directory that holds
/// nothing but additions (an `npm install`'s node_modules/): those are counted from the
/// directory listings alone, or, given `frozen` (a checkpoint just made of this state), from
/// its trees, which record how many files each directory holds: then the count costs the
/// files outside such directories, not those in them.
size_t count_changes(const std::filesystem::path& lower_dir, const WorkspaceLayout& layout,
                     const std::filesystem::path& frozen = {});

} // namespace ws::fuse
