#pragma once
// Opening and walking paths of a tree the agent controls without ever leaving it: no symlink
// followed, no "..", paths longer than PATH_MAX walked in chunks (the agent can nest
// directories without limit).

#include "fuse/unique_fd.hpp"

#include <sys/stat.h>

#include <functional>
#include <string>

namespace ws::fuse {

/// Opens `rel` below `root` without following any symlink on the way (openat2
/// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS); the last component may be a symlink (O_PATH).
/// `rel` may be longer than PATH_MAX: it is then walked in chunks of whole components, each
/// beneath the directory the one before opened, under the same rules. Holds at most two
/// fds at a time. Returns -1 with errno set on failure.
int open_beneath(int root, const std::string& rel, int flags);

/// Visits every entry below the directory `rel` beneath `root` (open_beneath's rules; no
/// symlink followed; iterative, as directories may nest deeper than a stack): `visit(path,
/// is_dir)` with `path` relative to `root`; it returns false to stop the walk. A directory
/// that cannot be opened is skipped. Returns false if `visit` stopped it.
bool walk_beneath(int root, const std::string& rel,
                  const std::function<bool(std::string&& path, bool is_dir)>& visit);

/// Opens paths beneath one root under open_beneath's rules (no symlink followed anywhere,
/// the last component included unless `flags` has O_PATH), keeping the directory of the
/// last path open: paths visited in sorted order, siblings together, then cost one openat
/// each instead of a walk from the root. Holds one directory fd.
class BeneathOpener {
public:
  explicit BeneathOpener(int root) : m_root(root) {}
  /// An fd for `rel`, or -1 with errno set.
  int open(const std::string& rel, int flags);
  /// lstat of `rel`; false with errno set.
  bool lstat(const std::string& rel, struct stat& st);

private:
  /// The directory holding `rel` (-1 with errno if it cannot be opened); `leaf` its name.
  int parent_of(const std::string& rel, const char*& leaf);
  int m_root;
  std::string m_dir;
  int m_dir_errno = 0;
  bool m_valid = false;
  UniqueFd m_fd;
};

} // namespace ws::fuse
