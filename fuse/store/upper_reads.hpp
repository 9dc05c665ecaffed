#pragma once
// What a snapshot reads of one object of the upper layer: its user xattrs, its content's
// SHA-256, and an fd to read it by.

#include "fuse/store/content_store.hpp"
#include "fuse/unique_fd.hpp"

#include <string>
#include <utility>
#include <vector>

namespace ws::fuse::store {

/// The user.* extended attributes of `name` in `dir` (not a symlink), sorted.
std::vector<std::pair<std::string, std::string>> user_xattrs(int dir, const std::string& name);

/// SHA-256 of what `fd` holds (`path` names it in errors).
ObjectId sha256_of(int fd, const std::string& path);

/// Opens `name` in `dir` for reading; a file the daemon may not read (the agent made it
/// 0000 in a workspace from before modes were recorded in user.ws.mode) is opened by lending
/// the owner read permission for the moment, when `may_chmod` (nothing else changes the file
/// meanwhile).
UniqueFd open_readable(int dir, const std::string& name, int flags, bool may_chmod);

} // namespace ws::fuse::store
