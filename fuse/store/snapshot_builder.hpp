#pragma once

// Freezing the workspace's state into trees (docs/checkpoints.md, "What a checkpoint
// costs"): the paths marked since the base tree are read again, their content stored, and
// the trees on their paths written anew; everything else is the base's. Reading may run
// while the agent writes (the daemon reads, then reads again under a short pause only what
// was written meanwhile): read() can be called several times, a later read of a path
// replacing an earlier one.

#include "fuse/meta_store.hpp"
#include "fuse/store/change_tracker.hpp"
#include "fuse/store/content_store.hpp"
#include "fuse/store/tree.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ws::fuse::store {

/// What a snapshot reads. Borrowed.
struct SnapshotSource {
  int upper = -1;                  ///< upper/ (O_PATH is fine)
  const MetaStore* meta = nullptr; ///< the overlay records
  int bases = -1;                  ///< bases/: a file equal to its base points there
};

/// Builds one snapshot. Not thread-safe; the caller holds the store's lock from the first
/// read() to the commit, so nothing it reuses is deleted meanwhile.
class SnapshotBuilder {
public:
  SnapshotBuilder(ContentStore& store, std::optional<ObjectId> base, SnapshotSource source);

  /// Reads the `marks`ed paths (and their ancestors' attributes) as they are now.
  void read(const Marks& marks);
  /// Whether the builder may lend itself the owner's read permission on what the agent
  /// made unreadable (then restoring the mode): only while nothing else changes the state.
  /// Without it, such paths are left for take_retry().
  void set_may_chmod(bool may) { m_may_chmod = may; }
  /// Builds from nothing (the base is gone): call before the first read().
  void drop_base() {
    m_base.reset();
    m_base_trees.clear();
    m_by_inode.reset();
  }
  /// Paths a read() could not read without lending itself permissions.
  Marks take_retry() { return std::exchange(m_retry, Marks{}); }
  /// Writes the trees and returns the root's name. Objects this build stored that the
  /// result does not name (a file read again later) are deleted.
  ObjectId assemble();

  struct Stats {
    uint64_t files_read = 0; ///< regular files whose content was read
    uint64_t bytes_read = 0;
    uint64_t reused = 0; ///< files whose content was known (same inode, size and times)
  };
  const Stats& stats() const { return m_stats; }

private:
  struct Fresh {
    bool exists = false;
    bool walked = false; ///< its children are exactly the fresh ones below it
    TreeEntry entry;
  };

  void refresh(const std::string& path);
  void walk(const std::string& path);
  void erase_below(const std::string& path);
  /// The entry for the object `name` in directory `dir` (attributes `st`), reusing what is
  /// known of it when its identity says it did not change.
  TreeEntry make_entry(int dir, const std::string& name, const struct stat& st,
                       const std::string& path, const std::optional<PathMeta>& meta);
  const TreeEntry* known(const std::string& path, const struct stat& st);
  const Tree* base_tree(const std::string& dir);
  const TreeEntry* base_entry(const std::string& path);
  void index_base_by_inode();
  bool covered_by_walk(const std::string& path) const;

  ContentStore& m_store;
  std::optional<ObjectId> m_base;
  SnapshotSource m_src;
  int64_t m_read_started = 0;
  bool m_root_walked = false;
  bool m_may_chmod = false;
  /// In walk(): what it finds may have moved there (a rename), so known() also looks for it
  /// by inode. A path marked alone was written where it is: its base entry is all there is.
  bool m_walking = false;
  Marks m_retry;
  std::map<std::string, Fresh> m_fresh;
  std::unordered_set<std::string> m_walked_now; ///< walked in the current read()
  std::unordered_map<std::string, std::unique_ptr<Tree>> m_base_trees; ///< null: none
  std::optional<std::unordered_map<uint64_t, TreeEntry>> m_by_inode;
  std::vector<ObjectId> m_added; ///< stored by this build
  Stats m_stats;
};

} // namespace ws::fuse::store
