#pragma once

#include "fuse/change_log.hpp"
#include "fuse/lower_watcher.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ws::fuse {

/// Keeps git's fsmonitor record across a clean unmount (docs/fsmonitor.md, "Across a
/// remount"), so the first `git status` after a mount gets a short list instead of "/".
///
/// At a clean exit, `save()` writes the record and a manifest of the real tree (every entry
/// but the top `.git`: inode, type, size, mtime, ctime), taken while the watchers still run.
/// At the next mount, `restore()` (before the view serves) takes the file away, continues the
/// record (same instance, same numbers), watches every real-tree directory itself (the new
/// daemon's kernel knows none, so its own watcher sees nothing yet), and notes every entry
/// that differs from the manifest: what the person did while nothing ran. The upper layer
/// only changes offline through ws's own edits, and those remove the file
/// (note_offline_edit). Correctness first: no file, a damaged one, another real tree, a
/// watch that cannot be added, a real-tree directory renamed while served: "everything".
class ChangeLogKeeper {
public:
  ChangeLogKeeper(ChangeLog& changes, std::filesystem::path real_tree, std::filesystem::path file);
  /// If the record's number moved since `save()` (a note the file does not hold), the file
  /// goes.
  ~ChangeLogKeeper();
  ChangeLogKeeper(const ChangeLogKeeper&) = delete;
  ChangeLogKeeper& operator=(const ChangeLogKeeper&) = delete;

  /// At mount, before the view serves: watches the whole real tree and continues the saved
  /// record if there is one. Returns true when it was continued.
  bool start();
  /// At a clean exit, while the view's watcher still runs: `sync_view` lets it catch up.
  void save(const std::function<bool()>& sync_view);

  /// Where the daemon keeps it: the workspace's directory.
  static std::filesystem::path file_in(const std::filesystem::path& workspace_dir) {
    return workspace_dir / "fsmonitor.state";
  }

private:
  struct Entry {
    uint64_t ino = 0;
    uint32_t mode = 0;
    uint64_t size = 0;
    int64_t mtime = 0;
    int64_t ctime = 0;
    bool operator==(const Entry&) const = default;
  };
  using Manifest = std::map<std::string, Entry>;

  /// Every entry below the real tree (from `from` on) but its top `.git`; with `watch`, each
  /// directory is watched before it is read. False past the size limit or when a directory
  /// cannot be read or watched (true when `from` went away meanwhile).
  bool scan(Manifest& out, bool watch, const std::string& from = {});
  /// Reads (and removes) the file; false when there is none or it cannot be trusted.
  bool load(ChangeLog::Saved& saved, Manifest& before);
  void on_events(const LowerWatcher::Event* events, size_t count, bool overflow);

  ChangeLog& m_changes;
  std::filesystem::path m_real;
  std::filesystem::path m_file;
  uint64_t m_saved_seq = 0;
  bool m_saved = false;
  std::mutex m_mutex;                      ///< m_dirs, and add() against the events
  std::map<int, std::string> m_dirs;       ///< watch -> real-tree directory ("" the top)
  std::unique_ptr<LowerWatcher> m_watcher; ///< the whole real tree, once restored
};

} // namespace ws::fuse
