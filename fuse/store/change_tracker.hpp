#pragma once

// What changed since the last checkpoint, so that the next one reads only that
// (docs/checkpoints.md, "What a checkpoint costs"). The daemon marks every path an operation
// changes (in OverlayFs::record and note_write, after the change landed); a checkpoint takes
// the marks and reads those paths again. Between daemons the marks live in store/tracker,
// with the tree they are relative to (the base). A daemon that died without saving them
// leaves "serving" there: the next checkpoint then reads everything (reusing the content of
// every file whose inode, size and times did not change).

#include "fuse/store/content_store.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace ws::fuse::store {

/// Paths to read again. `true`: the whole subtree (a rename's destination, a reset's
/// scope); `false`: the object at the path (its children, if a directory, are marked
/// themselves when they change).
struct Marks {
  bool all = false;
  std::map<std::string, bool, std::less<>> paths;

  void add(std::string_view path, bool tree);
  void merge(const Marks& other);
  bool empty() const { return !all && paths.empty(); }
  size_t size() const { return all ? SIZE_MAX : paths.size(); }
};

/// What store/tracker says.
struct TrackerState {
  std::optional<ObjectId> base; ///< the tree the marks are relative to (none: read everything)
  bool serving = false;         ///< a daemon runs (or died) and holds the marks in memory
  Marks marks;
};

/// Reads store/tracker (`file`); a missing or unreadable file reads as "read everything".
TrackerState load_tracker(const std::filesystem::path& file);
/// Replaces store/tracker atomically.
void save_tracker(const std::filesystem::path& file, const TrackerState& state);
/// For a process editing the state without a daemon (it holds daemon.lock): adds `marks`.
void add_offline_marks(const std::filesystem::path& file, const Marks& marks);

/// The daemon's marks. Thread-safe: FUSE workers mark, the control thread takes.
/// m_mutex is a leaf: nothing is taken under it.
class ChangeTracker {
public:
  explicit ChangeTracker(std::filesystem::path file) : m_file(std::move(file)) {}

  void mark(std::string_view path) { add(path, false); }
  void mark_tree(std::string_view path) { add(path, true); }
  void mark_all();
  /// Changes each time marks are taken: a writer that marked its file in an older
  /// generation marks it again (note_write marks once per generation, not per write).
  uint64_t generation() const { return m_generation.load(std::memory_order_acquire); }
  /// The marks so far, leaving none.
  Marks take();
  /// Puts back marks taken by a checkpoint that failed.
  void give_back(const Marks& marks);
  size_t pending() const;

  /// The daemon starts: takes over the saved marks (all, if the last daemon died) and
  /// records that a daemon holds them now. Returns the base they are relative to.
  std::optional<ObjectId> start_serving();
  /// The daemon stops: saves the marks for the next one. Never throws.
  void stop_serving(const std::optional<ObjectId>& base) noexcept;
  const std::filesystem::path& file() const { return m_file; }

private:
  void add(std::string_view path, bool tree);

  std::filesystem::path m_file;
  mutable std::mutex m_mutex;
  Marks m_marks;
  std::atomic<uint64_t> m_generation{1};
};

} // namespace ws::fuse::store
