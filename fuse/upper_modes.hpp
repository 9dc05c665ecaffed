#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace ws::fuse {

/// Upper directories and files stay open to their owner (the daemon's user) whatever mode
/// the agent gives them: the mode the view shows, when it lacks some of the owner's bits
/// (rwx for a directory, rw for a file), is kept in this extended attribute of the upper
/// object (as fuse-overlayfs keeps its `user.fuseoverlayfs.override_stat`). So a normal
/// user's daemon keeps working inside a directory or on a file the agent made `chmod 000`,
/// and so do `ws status`, `ws diff`, `ws apply` and `ws review`, which read upper/ directly
/// and never change a mode to do so; the kernel still holds the agent to the mode it set
/// (default_permissions checks the mode getattr reports). docs/filesystem.md, "Modes of
/// directories and files".
inline constexpr const char* k_mode_xattr = "user.ws.mode";

/// True for the extended attributes the view keeps to itself: never listed, read, set or
/// removed through the view.
bool is_private_xattr(std::string_view name);

/// The mode recorded for the upper object `fd` (an O_PATH fd, or an open one), if any.
std::optional<mode_t> recorded_mode(int fd);

/// The mode recorded for the upper object `name` in the directory `dir_fd`, if any (never
/// through a symlink).
std::optional<mode_t> recorded_mode_at(int dir_fd, const std::string& name);

// ---- directories ------------------------------------------------------------------------

/// Gives the upper directory `fd` (an O_PATH fd) the mode `mode` (its 07777 bits) as the
/// view shows it: its real mode is `mode` with the owner's rwx added, and `mode` is recorded
/// when that differs. Where the filesystem keeps no user xattrs, the real mode is `mode`
/// itself (the daemon and ws then meet what the agent set, as before). Returns the mode to
/// show when it differs from the real one. Throws with `path` in the message.
std::optional<mode_t> set_upper_dir_mode(int fd, mode_t mode, const std::string& path);

// ---- regular files ----------------------------------------------------------------------
//
// A directory's record is read once per node (Node::shown_mode); a file's would cost an
// xattr read on the first getattr of every file in the upper layer (an `npm install` makes
// thousands). So a file whose mode is recorded carries a mark its stat already shows: the
// sticky bit, which Linux ignores on regular files. getattr looks for a record only on an
// upper file with that bit; the many files without it cost nothing more than before.
//
// The real mode of an upper file differs from the agent's only in the owner's r and w bits
// and the mark: its x bits, setuid and setgid are the agent's, so whatever reads the real
// mode for the x bit (`ws diff`'s 100755, the "new executable" rule) reads the agent's.

/// True when the view must keep `mode` (of a regular file) in a record: it refuses the
/// owner reading or writing.
inline bool file_mode_needs_record(mode_t mode) {
  return (mode & (S_IRUSR | S_IWUSR)) != (S_IRUSR | S_IWUSR);
}

/// The real mode of an upper file the view shows as `mode` (07777 bits), where user
/// xattrs are kept.
inline mode_t upper_file_real_mode(mode_t mode) {
  mode &= 07777;
  return file_mode_needs_record(mode) ? mode | S_IRUSR | S_IWUSR | S_ISVTX : mode;
}

/// Gives the upper regular file `fd` the mode `mode` (its 07777 bits) as the view shows it:
/// upper_file_real_mode(`mode`), and `mode` recorded when that differs. `fd` is an O_PATH
/// fd when `o_path` (reached through /proc), else an open one. Without user xattrs the real
/// mode is `mode`. Throws with `path` in the message. Callers serialise changes of one
/// file's mode (Node::mutex): the record and the mark are two calls.
void set_upper_file_mode(int fd, bool o_path, mode_t mode, const std::string& path);

/// set_upper_file_mode for a file no one else reaches yet (just created, or a copy-up's copy
/// in work/), open as `fd`: its real mode first, then the record (one call fewer for a
/// file created closed, as git makes its objects 0444).
void set_new_upper_file_mode(int fd, mode_t mode, const std::string& path);

/// True when the upper file whose mode is `st_mode` may have a record: it carries the mark.
/// (A file the agent itself made sticky has the mark and no record: its real mode shows.)
inline bool file_mode_marked(mode_t st_mode) {
  return S_ISREG(st_mode) && (st_mode & S_ISVTX) != 0;
}

/// The mode (with its type) the view shows for the upper object `name` in `dir_fd` whose
/// stat gave `st_mode`: the record of a marked file, else `st_mode`. For readers of upper/
/// (the change walk), so that a mode change means the agent's.
mode_t shown_mode_at(int dir_fd, const std::string& name, mode_t st_mode);
/// The same for the upper object open as `fd` (O_PATH will do).
mode_t shown_mode_of(int fd, mode_t st_mode);

} // namespace ws::fuse
