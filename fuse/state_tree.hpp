#pragma once

// Walking, copying and removing directory trees for state edits (state_edit.cpp). Every
// walk is iterative and holds one fd per side, going back up through ".." checked against
// the directory it came from: the agent may nest directories deeper than any stack or fd
// limit, and nothing may move these trees while we walk them.

#include "fuse/hash.hpp"
#include "fuse/unique_fd.hpp"

#include <sys/stat.h>

#include <functional>
#include <string>
#include <vector>

namespace ws::fuse {

/// "/proc/self/fd/N": reaches what an O_PATH fd points at, for calls that take a path.
std::string proc_path(int fd);
/// "a/b/c" -> {"a", "b", "c"}.
std::vector<std::string> split_path(const std::string& path);
/// "a/b/c" -> "a/b"; "a" -> "".
std::string parent_of(const std::string& path);
UniqueFd dup_fd(int fd);
/// O_PATH on directory `name` in `at`, not following a symlink; throws with `path`.
UniqueFd open_dir(int at, const std::string& name, const std::string& path);
/// The names in directory `dir` (any fd on it, O_PATH too), without "." and "..".
std::vector<std::string> list_names(int dir, const std::string& path);

/// Copies the first `size` bytes of `src` to `dst`, keeping holes. With `hasher`, also
/// hashes the whole content (holes as zeros) exactly as copy-up does, so the hash can stand
/// for a base.
void copy_content(int src, int dst, off_t size, Hasher* hasher, const std::string& path);
void copy_user_xattrs(int from_fd, int to_fd);
/// Gives `name` in `dir` the mode, owner (as root) and times of `st`.
void set_attrs(int dir, const std::string& name, const struct stat& st);

/// What copy_tree does with each object it meets.
struct CopyActions {
  /// Copies non-directory `name` (attributes `st`) of directory `src` into `dst`.
  std::function<void(int src, int dst, const std::string& name, const struct stat& st,
                     const std::string& path)>
      object;
  /// Directory `name` now holds all its entries in `dst`: finish it (mode, times...).
  std::function<void(int src, int dst, const std::string& name, const struct stat& st,
                     const std::string& path)>
      directory;
};

/// Copies the content of directory `src_root` into directory `dst_root`; `top` is the path
/// of both, for errors and records.
void copy_tree(int src_root, int dst_root, const std::string& top, const CopyActions& act);

/// A plain copy (checkpoints, restore): content with holes, mode, owner (as root), times,
/// user.* xattrs; hard links within the copied tree stay hard links. For copy_tree with
/// top "" into `dst_root`.
CopyActions plain_copy(int dst_root);

/// Renames `name` in `dir` to `to_name` in `to_dir`; a directory the agent made read-only
/// (it, or the one holding it) is opened up for the move.
void move_object(int dir, const std::string& name, int to_dir, const std::string& to_name,
                 const std::string& path);

/// Removes `name` in `dir` and, if it is a directory, everything below it, whatever its
/// permissions. Missing is not an error.
void remove_tree(int dir, const std::string& name);

} // namespace ws::fuse
