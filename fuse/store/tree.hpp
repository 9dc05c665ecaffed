#pragma once

// A checkpoint as trees (docs/checkpoints.md): one tree object per directory of the
// workspace's state, listing its entries with everything a restore needs (type, mode,
// owner, times, content, symlink target, user.* xattrs, the overlay record of the path) and,
// for directories, the tree of their own entries. Trees are objects in the content store,
// named by their bytes: a checkpoint that changed one file writes that file and the trees
// on its path, and shares every other tree with the checkpoint before it.

#include "fuse/meta_store.hpp"
#include "fuse/store/content_store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws::fuse::store {

enum class EntryType : uint8_t {
  None = 0, ///< nothing in upper/: the path only carries a record, or records below it
  Directory = 1,
  File = 2,
  Symlink = 3,
  Fifo = 4,
  Socket = 5,
  CharDevice = 6,
  BlockDevice = 7,
};

/// Where a regular file's bytes are.
enum class ContentRef : uint8_t {
  None = 0,
  Object = 1, ///< `content`: an object of the content store
  Base = 2,   ///< `xxh3`: the workspace's bases/<xxh3>, byte for byte (checked when frozen)
};

struct TreeEntry {
  std::string name;
  EntryType type = EntryType::None;
  uint32_t mode = 0; ///< permission bits (07777)
  uint32_t uid = 0;
  uint32_t gid = 0;
  int64_t atime_ns = 0;
  int64_t mtime_ns = 0;
  /// The upper object's identity when frozen: ctime, inode and link count say whether it
  /// changed since (and which names are hard links of one file).
  int64_t ctime_ns = 0;
  uint64_t ino = 0;
  uint64_t nlink = 0;
  uint64_t size = 0;
  uint64_t rdev = 0;
  /// Frozen within the timestamp granularity of a change: its ctime cannot vouch that
  /// nothing changed since, so it is read again rather than reused.
  bool racy = false;
  ContentRef ref = ContentRef::None;
  ObjectId content;
  Hash128 xxh3;       ///< regular files: of the content; symlinks: of the target
  std::string target; ///< symlinks
  std::vector<std::pair<std::string, std::string>> xattrs; ///< user.* only, sorted
  std::optional<PathMeta> meta;                            ///< the path's record in meta.db
  std::optional<ObjectId> subtree; ///< directories (and None with records below): their tree
  uint64_t files = 0; ///< containers: the non-directories below (counts without reading)

  bool is_container() const { return type == EntryType::Directory || type == EntryType::None; }
  bool operator==(const TreeEntry&) const = default;
};

/// Entries sorted by name (bytes).
struct Tree {
  std::vector<TreeEntry> entries;
  const TreeEntry* find(std::string_view name) const;
};

std::string serialize_tree(const Tree& tree);
/// Throws std::runtime_error on bytes that are not a tree.
Tree parse_tree(std::string_view bytes);
/// What a tree names (for reference counting).
std::vector<std::pair<ObjectId, ObjectKind>> tree_children(const Tree& tree);
/// tree_children of the tree `id` in `store`.
ChildrenOf children_in(const ContentStore& store);

/// The paths whose object or record differs between the trees `from` (nullopt: nothing)
/// and `to`, directories left out (their content is listed), sorted. Shared subtrees are
/// skipped whole: costs what differs. A difference of identity alone (inode, ctime, link
/// count: a restore writes new inodes) is no difference.
std::vector<std::string> changed_paths(const ContentStore& store,
                                       const std::optional<ObjectId>& from, const ObjectId& to);

} // namespace ws::fuse::store
