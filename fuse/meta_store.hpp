#pragma once

#include "fuse/hash.hpp"
#include "fuse/sqlite.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws::fuse {

/// What a lower (real-tree) object looked like when the agent first touched it. mode 0:
/// nothing stood there (the agent created the path).
struct Identity {
  uint64_t ino = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint32_t mode = 0;           ///< st_mode, type bits included
  std::optional<Hash128> hash; ///< content hash, when it was read (copy-up); symlinks: target
  bool operator==(const Identity&) const = default;
};

/// What a stat says of an object, no hash: the one place that turns a stat into an Identity.
inline Identity identity_of(const struct stat& st) {
  Identity id;
  id.ino = st.st_ino;
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id.mode = st.st_mode;
  return id;
}

/// Per-path overlay metadata. A path with no record is plain: upper wins, else lower shows.
struct PathMeta {
  bool whiteout = false;                  ///< the lower object at this path is deleted in the view
  bool opaque = false;                    ///< the upper directory here does not merge the lower one
  std::optional<Identity> base;           ///< lower object that stood here when first changed
  std::optional<std::string> origin_path; ///< lower path the upper object here was copied from
  std::optional<Identity> origin;         ///< that lower object (its ino is the one we report)
  bool empty() const { return !whiteout && !opaque && !base && !origin; }
  bool operator==(const PathMeta&) const = default;
};

/// The workspace's overlay metadata: whiteouts, opaque directories, bases and origins.
/// Kept in memory (lookups consult it on every miss) and written through to SQLite
/// (`meta.db`), so a killed daemon loses nothing it had acknowledged. Thread-safe: every
/// method takes m_mutex; nothing calls out while holding it.
class MetaStore {
public:
  MetaStore(const std::filesystem::path& db_file, Db::Mode mode);

  std::optional<PathMeta> get(std::string_view path) const;
  bool is_whiteout(std::string_view path) const;
  bool is_opaque(std::string_view path) const;
  /// Stores `meta` at `path` (erases the record when `meta` is empty).
  void put(std::string_view path, const PathMeta& meta);
  void erase(std::string_view path);
  /// Every record at `prefix` or below it ("" lists all), in path order.
  std::vector<std::pair<std::string, PathMeta>> subtree(std::string_view prefix) const;
  /// Names of the whiteouts directly inside directory `dir` ("" is the root).
  std::vector<std::string> whiteouts_in(std::string_view dir) const;
  /// Moves every record at `from` or below to the same place under `to`, replacing what
  /// was at `to` or below. What travels with a moved object is its origin and opacity; its
  /// base and whiteout describe the real tree at the old path and are dropped. One
  /// transaction.
  void move_subtree(std::string_view from, std::string_view to);
  /// Erases every record strictly below `dir`.
  void erase_below(std::string_view dir);
  /// Replaces every record at `prefix` or below it ("" is all of them; the info table
  /// stays) with `records`, which must lie there too. One transaction: a reset or a
  /// restore never leaves half of the old records with half of the new.
  void replace_subtree(std::string_view prefix,
                       const std::vector<std::pair<std::string, PathMeta>>& records);

  /// Small key/value facts about the workspace (repository path, name, format).
  std::optional<std::string> info(std::string_view key) const;
  void set_info(std::string_view key, std::string_view value);

private:
  void write_row(std::string_view path, const PathMeta& meta);
  void delete_row(std::string_view path);
  std::map<std::string, PathMeta, std::less<>>::const_iterator
      lower_bound_locked(std::string_view) const;

  mutable std::mutex m_mutex;
  mutable Db m_db;
  std::map<std::string, PathMeta, std::less<>> m_paths;
};

/// "a/b" + "c" -> "a/b/c"; "" + "c" -> "c".
std::string join_path(std::string_view dir, std::string_view name);
/// True when `path` is `dir` or lies below it ("" contains everything).
bool path_within(std::string_view path, std::string_view dir);

} // namespace ws::fuse
