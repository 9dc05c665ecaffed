#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace ws {

/// Which file of the upper layer, as it was at one moment: its inode, and when its content
/// (mtime) and its inode (ctime) last changed. Every write, truncate, chmod, rename or link
/// sets ctime to the present, and nothing can set it back (`touch -d` sets mtime, and ctime
/// with it): a file whose stamp is unchanged has the content it had.
struct FileStamp {
  uint64_t ino = 0;
  int64_t ctime_ns = 0;
  int64_t mtime_ns = 0;
  uint64_t size = 0;
  bool operator==(const FileStamp&) const = default;
};

/// What the content probe learns of a file's start (content_probe.hpp).
struct ProbedFacts {
  bool binary = false;
  bool recoded = false;
  bool operator==(const ProbedFacts&) const = default;
};

/// What the content probe found of the live workspace's files (binary or not), kept in the
/// workspace's state between commands, as git's index keeps what it knows of tracked files:
/// a second `ws status` reads only the files that changed since the first. Out of the
/// agent's reach like the rest of the state. A missing, unreadable or foreign file is an
/// empty cache; nothing here is ever needed for a right answer.
class ProbeCache {
public:
  /// An unused cache: answers nothing, saves nothing (a checkpoint's state).
  ProbeCache() = default;
  /// The cache in `file` for the upper layer open at `upper`. `start_ns` (CLOCK_REALTIME),
  /// taken before any file was looked at: a file changed shortly before is not kept (see
  /// learn).
  ProbeCache(std::filesystem::path file, int upper, int64_t start_ns);

  /// What the content probe found when a file with this very stamp was read; nullopt when
  /// not known.
  std::optional<ProbedFacts> facts(const FileStamp& stamp);

  /// A file was read (at or after `stamp` was taken, from the same open file): binary or
  /// not. Kept only when its ctime is older than the start by more than any timestamp
  /// granularity: a write in the same clock tick as the one before it could leave ctime as
  /// it was.
  void learn(const FileStamp& stamp, ProbedFacts facts);

  /// Writes the file again if it changed: the entries answered or learned this time, no
  /// others (files gone since are forgotten). Fails silently: it is a cache.
  void save();

private:
  struct Entry {
    FileStamp stamp;
    ProbedFacts facts;
  };
  std::filesystem::path m_file;
  uint64_t m_dev = 0; ///< the upper layer's: a cache is for one directory
  uint64_t m_dir_ino = 0;
  int64_t m_settled_before = 0;
  bool m_enabled = false;
  std::vector<Entry> m_entries; ///< as loaded, sorted by inode
  std::vector<bool> m_used;
  std::vector<Entry> m_learned;
};

} // namespace ws
