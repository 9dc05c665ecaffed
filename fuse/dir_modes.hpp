#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace ws::fuse {

/// Upper directories stay open to their owner (the daemon's user) whatever mode the agent
/// gives them: the mode the view shows, when it lacks some of the owner's rwx, is kept in
/// this extended attribute of the upper directory (as fuse-overlayfs keeps its
/// `user.fuseoverlayfs.override_stat`). So a normal user's daemon keeps working inside a
/// directory the agent made `chmod 000`, and so do `ws status`, `ws diff` and `ws apply`,
/// which read upper/ directly; the kernel still holds the agent to the mode it set
/// (default_permissions checks the mode getattr reports). docs/filesystem.md, "Modes of
/// directories".
inline constexpr const char* k_dir_mode_xattr = "user.ws.mode";

/// True for the extended attributes the view keeps to itself: never listed, read, set or
/// removed through the view.
bool is_private_xattr(std::string_view name);

/// Gives the upper directory `fd` (an O_PATH fd) the mode `mode` (its 07777 bits) as the
/// view shows it: its real mode is `mode` with the owner's rwx added, and `mode` is recorded
/// when that differs. Where the filesystem keeps no user xattrs, the real mode is `mode`
/// itself (the daemon and ws then meet what the agent set, as before). Returns the mode to
/// show when it differs from the real one. Throws with `path` in the message.
std::optional<mode_t> set_upper_dir_mode(int fd, mode_t mode, const std::string& path);

/// The mode recorded for the upper directory `fd` (an O_PATH fd), if any.
std::optional<mode_t> recorded_dir_mode(int fd);

} // namespace ws::fuse
