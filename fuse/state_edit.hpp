#pragma once

// Editing a workspace's state files: drop paths, drop everything, copy the state aside (a
// checkpoint) and put a copy back (restore). The same code runs in the CLI (no daemon: it
// holds daemon.lock) and in the daemon (under OverlayFs's exclusive tree lock, through the
// daemon's own MetaStore); the daemon then brings its nodes in line (overlay_state.cpp).

#include "fuse/hash.hpp"
#include "fuse/layout.hpp"
#include "fuse/meta_store.hpp"
#include "fuse/unique_fd.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ws::fuse {

/// The directories of a workspace's state an edit works on, as open fds, and its metadata.
/// Borrowed: the owner (OverlayFs, or OfflineState) keeps them open for the edit's life.
struct StateDirs {
  int lower = -1; ///< O_PATH on the real tree's top; only ever read
  int upper = -1; ///< O_PATH on upper/
  int work = -1;  ///< work/: scratch and trash, on the same filesystem as upper/
  int bases = -1; ///< bases/: base contents by XXH3-128
  MetaStore* meta = nullptr;
  std::filesystem::path meta_db; ///< the file behind `meta`, for copying it consistently
  std::filesystem::path store;   ///< store/: checkpoints' content (fuse/store/)
};

/// A workspace's state opened by a process that is not its daemon (the CLI holds the
/// workspace's daemon.lock meanwhile, so no daemon can start and write). Owns what it opens.
class OfflineState {
public:
  OfflineState(const std::filesystem::path& lower_dir, const WorkspaceLayout& layout);
  const StateDirs& dirs() const { return m_dirs; }

private:
  UniqueFd m_lower, m_upper, m_work, m_bases;
  MetaStore m_meta;
  StateDirs m_dirs;
};

/// Collects what an edit removes from upper/: each object is renamed into a private
/// directory in work/ (one rename, however big the tree), and deleted by empty() once the
/// edit's locks are released. Open files keep working meanwhile and after (the daemon pins
/// them). A crash leaves the trash in work/, which the next daemon start empties.
class Trash {
public:
  explicit Trash(int work_dir);
  ~Trash();
  Trash(const Trash&) = delete;
  Trash& operator=(const Trash&) = delete;
  /// Moves `name` in `dir` (at view path `path`, for errors) into the trash.
  void take(int dir, const std::string& name, const std::string& path);
  /// Deletes everything taken so far. Never throws: the leftovers go at the next start.
  void empty() noexcept;

private:
  int m_work;
  std::string m_name;
  UniqueFd m_dir;
  uint64_t m_count = 0;
};

/// Changes a workspace's upper/ and metadata so that paths show the real tree again.
/// Not thread-safe: the caller holds whatever keeps others from changing the state.
class StateEditor {
public:
  StateEditor(const StateDirs& dirs, Trash& trash) : m_dirs(dirs), m_trash(trash) {}

  /// For each of `paths` (repository-relative; see minimal_roots), the view shows the
  /// real tree at that path and below it: the agent's object goes with every record at or
  /// below the path. Where an ancestor hides the real tree (whiteout, opaque directory, a
  /// file standing where the real tree has a directory), the real object is copied into
  /// upper/ with its base recorded, so it shows again and counts as unchanged.
  void drop(const std::vector<std::string>& paths);
  /// Empties upper/ (the directory stays) and erases every record; bases/ stays.
  void drop_all();
  /// Replaces upper/ and every record with the checkpoint's in `checkpoint_dir` (its trees
  /// in the store, or a full copy of the format before them).
  void restore(const std::filesystem::path& checkpoint_dir);
  /// For each of `paths`, what the real tree holds there now becomes the base the agent's
  /// version is compared with (after `ws review` landed part of a file: the landed hunks are
  /// no longer changes; the rest still is). The view does not change.
  void rebase(const std::vector<std::string>& paths);

private:
  void drop_one(const std::string& path);
  void materialize(const std::string& path, size_t hidden_at);
  /// Copies real object `name` of `src` into `dst` at view path `path`, recording it as
  /// its own base (so it counts as unchanged) and origin (its inode number shows).
  void copy_as_base(int src, int dst, const std::string& name, const struct stat& st,
                    const std::string& path);
  void save_base(int fd, const Hash128& hash, off_t size, const std::string& path);
  void empty_upper();

  StateDirs m_dirs;
  Trash& m_trash;
};

/// Freezes the state into the store and names it in the new directory `dest` (a checkpoint
/// draft: dest/snapshot), reading only what changed since the last checkpoint
/// (store/tracker). For a process that is not the daemon: it holds daemon.lock, so nothing
/// writes meanwhile. Returns the bytes it added to the store.
uint64_t freeze_state(const StateDirs& dirs, const std::filesystem::path& dest);

/// Records, for the next checkpoint, that an edit without a daemon changed `paths` (and
/// what is below them; {""}: everything).
void note_offline_edit(const StateDirs& dirs, const std::vector<std::string>& paths);

/// `paths` sorted, without duplicates and without paths below another one of them; a
/// result of {""} means everything.
std::vector<std::string> minimal_roots(std::vector<std::string> paths);

} // namespace ws::fuse
