#pragma once

// Bringing a frozen state back onto disk: `ws restore` writes a checkpoint's trees into
// upper/, and `ws diff --checkpoint` / `ws apply --checkpoint` into a private directory
// they read like a workspace (docs/checkpoints.md).

#include "fuse/meta_store.hpp"
#include "fuse/store/content_store.hpp"

#include <string>
#include <utility>
#include <vector>

namespace ws::fuse::store {

/// Writes the tree `root` into the empty directory `dst` (any fd on it): content (holes
/// kept), modes, owners (as root), times, user.* xattrs, symlinks, FIFOs, sockets, devices
/// (as root); names of one frozen inode become hard links again. `bases` is the workspace's
/// bases/ (files equal to their base point there). Returns every record the trees carry
/// (meta.db's content for that state), in path order.
std::vector<std::pair<std::string, PathMeta>> write_tree(const ContentStore& store, int bases,
                                                         const ObjectId& root, int dst);

/// Every record of the tree `root`, without writing anything.
std::vector<std::pair<std::string, PathMeta>> tree_records(const ContentStore& store,
                                                           const ObjectId& root);

} // namespace ws::fuse::store
