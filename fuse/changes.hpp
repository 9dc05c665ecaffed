#pragma once

#include "fuse/layout.hpp"
#include "fuse/meta_store.hpp"

#include <sys/types.h>

#include <filesystem>
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
  /// Deleted: no record of this file was made when the agent deleted it (a directory above it
  /// was removed or moved whole, or the person put the file there since): what the agent
  /// saw of it is unknown, so `ws apply` must not delete it on its own.
  bool unseen = false;
};

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

/// Opens `rel` below `root` without following any symlink on the way (openat2
/// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS); the last component may be a symlink (O_PATH).
/// `rel` may be longer than PATH_MAX: it is then walked in chunks of whole components, each
/// beneath the directory the one before opened, under the same rules. Holds at most two
/// fds at a time. Returns -1 with errno set on failure.
int open_beneath(int root, const std::string& rel, int flags);

} // namespace ws::fuse
